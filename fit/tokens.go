package fit

import (
	"encoding/base64"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// TokenCounter counts the tokens a model will read. Estimate is fast and within
// about ±10% of Exact on realistic CSV/JSON; Exact is the o200k_base count.
//
// Exact(s) must not exceed MaxTokens(s), len(s): true of every byte-level BPE
// (o200k_base, cl100k_base, Claude's). The estimate has no such bound and may
// be a quarter of Exact (random Yi or Cherokee letters), so code that skips
// Exact must check MaxTokens, not the estimate, against its limit.
type TokenCounter interface {
	Estimate(s string) int
	Exact(s string) int
}

// O200k is the default TokenCounter: a calibrated estimator plus exact counting with
// github.com/tiktoken-go/tokenizer's o200k_base (loaded lazily, once, goroutine-safe).
//
// Use it through a pointer (NewO200k); the zero value is ready to use too. Exact
// never fails: should the embedded encoder ever fail to load or to count a string,
// Exact returns a deliberately conservative count instead (see conservativeCount)
// and logs nothing.
type O200k struct {
	once  sync.Once
	codec tokenizer.Codec // nil when loading failed

	// load replaces tokenizer.Get in tests.
	load func() (tokenizer.Codec, error)
}

// NewO200k returns a counter; the encoder loads on the first call to Exact.
func NewO200k() *O200k { return &O200k{} }

// Estimate approximates the o200k_base count of s in one pass over its bytes,
// without the encoder. See docs/tokens.md for its measured error.
func (c *O200k) Estimate(s string) int { return estimateTokens(s) }

// Exact is the o200k_base count of s: the number of tokens a model using that
// encoding reads for s (no special tokens are recognized in s).
func (c *O200k) Exact(s string) (n int) {
	if s == "" {
		return 0
	}
	c.once.Do(c.init)
	if c.codec == nil {
		return conservativeCount(s)
	}
	defer func() {
		if recover() != nil {
			n = conservativeCount(s)
		}
	}()
	n, err := c.codec.Count(s)
	if err != nil {
		return conservativeCount(s)
	}
	return n
}

func (c *O200k) init() {
	load := c.load
	if load == nil {
		load = func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) }
	}
	defer func() {
		if recover() != nil {
			c.codec = nil
		}
	}()
	codec, err := load()
	if err != nil {
		return
	}
	c.codec = codec
}

// MaxTokens is the most tokens s can count by O200k.Exact, known without the
// encoder: its length in bytes. Byte-pair encoding starts from single bytes and
// only merges them, so no token is shorter than a byte; o200k_base comes close
// on scripts it has few tokens for (Cherokee, Yi: about 1.0 tokens a byte).
// Text within a limit by MaxTokens is within it by any count.
func MaxTokens(s string) int { return len(s) }

// conservativeCount is what Exact returns when the encoder is unavailable: at
// least half the bytes (number-heavy CSV, the densest realistic text, runs at
// about 0.5 tokens a byte) and at least 4/3 of the estimate, so a budget checked
// with it errs on the side of sending less; never more than MaxTokens, which no
// true count exceeds.
func conservativeCount(s string) int {
	return min(MaxTokens(s), max((len(s)+1)/2, (estimateTokens(s)*4+2)/3))
}

// ---------------------------------------------------------------------------
// The estimator.
//
// o200k_base first splits text into pieces with a regular expression, then
// byte-pair-encodes each piece on its own; no token crosses a piece boundary.
// The estimator reproduces the split in a single pass (exactly for ASCII text)
// and prices each piece by its class:
//
//   - a run of digits is split into groups of up to three, each one token;
//   - a word (a letter run, split where lower case turns to capitals, with an
//     optional leading space or punctuation character) costs about one token,
//     more when it is long, capitalized without a space before it, glued to the
//     letter or digit before it, made of several capitals then lower case, or
//     random-looking: unlikely letter pairs (judged by a table of letter-pair
//     surprisal in the o200k vocabulary) or long consonant clusters;
//   - a run of punctuation costs one token, more for unlikely character pairs
//     (a table again: `","` or `"},{"` are one token, `%_|_` is three);
//   - a whitespace piece costs one token, more when it mixes characters;
//   - non-ASCII letters and symbols are priced per character by script, with a
//     table of the kana, CJK and Hangul characters that are single tokens, and
//     one of the blocks whose letters o200k has no tokens for (a token a byte).
//
// The costs were fitted against o200k_base counts on the corpus of
// tokens_test.go; docs/tokens.md has the method and the measured error.
// est is a variable so that calibration code can vary it; treat it as constant.

// estParams are the per-class costs, in tokens.
type estParams struct {
	wordBase      float64 // a word of ASCII letters
	wordFree      int     // letters a word has before it costs more
	wordPerLetter float64 // per letter beyond wordFree
	wordPerBit    float64 // per quarter bit of letter-pair surprisal above surpThreshold
	surpThreshold int     // quarter bits
	capNoSpace    float64 // Capitalized word without a leading space
	capPerLetter  float64 // the same, per letter beyond wordFree
	mixedCase     float64 // several capitals then lower case ("ACon", "IDs")
	capsPerLetter float64 // all capitals, per letter beyond the third
	clusterFree   int     // consonants in a row that cost nothing more
	perCluster    float64 // per further consonant in a row (random ids: "Cjzbb")
	caseSplit     float64 // a word right after a letter or digit (camelCase, ids)
	leadPunct     float64 // ASCII punctuation glued to the front of a word (see leadCost)
	leadOther     float64 // other whitespace (tab, no-break space) glued to a word
	contraction   float64 // 's, 't, 're, 've, 'm, 'll, 'd after a word

	latinAccent float64 // per accented Latin-1 letter (é, ñ, ü) after an ASCII one
	latinExt    float64 // per Latin Extended letter (ı, ş, ł, ő; U+0100–U+024F) after an ASCII one
	latinRun    float64 // per accented Latin letter after another non-ASCII letter
	cyrillic    float64 // per Cyrillic letter
	greek       float64 // per Greek letter
	arabic      float64 // per Arabic letter
	hebrew      float64 // per Hebrew letter
	letter2     float64 // per other two-byte letter (Armenian, Syriac…)
	devanagari  float64 // per Devanagari letter or sign
	thai        float64 // per Thai letter or sign
	vietnamese  float64 // per Latin Extended Additional letter (ạ, ế, ữ)
	cjkSingle   float64 // per kana, CJK or Hangul character that is one token
	cjkMulti    float64 // per kana, CJK or Hangul character that is not
	letter3     float64 // per other letter of three bytes (other Indic scripts…)
	letter4     float64 // per four-byte letter (rare CJK)
	rarePerByte float64 // per byte of a letter in a block o200k has no single-letter token for (Cherokee, Yi)
	otherNumber float64 // per non-ASCII number character

	punctFirst     float64 // a run of punctuation
	punctPerChar   float64 // per ASCII punctuation character beyond punctFree
	punctFree      int
	punctPerBit    float64 // per quarter bit of pair surprisal above punctThreshold
	punctThreshold int     // quarter bits
	symbol2        float64 // per non-ASCII symbol of two bytes (©, °, ×)
	symbolPunct    float64 // per general punctuation or currency sign (–, “, €, U+2000–U+20CF)
	symbolCJK      float64 // per CJK or fullwidth punctuation (、, ・, ！)
	symbol3        float64 // per other symbol of three bytes (arrows, maths, dingbats)
	symbol4        float64 // per four-byte symbol (emoji)
	invalid        float64 // per byte of invalid UTF-8 (encoded as U+FFFD)

	space     float64 // a whitespace piece
	spaceSame float64 // per further character repeating the one before
	spaceMix  float64 // per further ' ', \t, \r, \n differing from the one before
	spaceOdd  float64 // per further other whitespace character (\v, \f, no-break space…)
}

var est = estParams{
	wordBase:      0.22,
	wordFree:      5,
	wordPerLetter: 0.28,
	wordPerBit:    0.15,
	surpThreshold: 32,
	capNoSpace:    0.3,
	capPerLetter:  0.05,
	mixedCase:     0.8,
	capsPerLetter: 0.25,
	clusterFree:   3,
	perCluster:    1.0,
	caseSplit:     0.9,
	leadPunct:     1,
	leadOther:     0.5,
	contraction:   0.5,

	latinAccent: 0.3,
	latinExt:    0.9,
	latinRun:    1.05,
	cyrillic:    0.37,
	greek:       0.45,
	arabic:      0.37,
	hebrew:      0.55,
	letter2:     0.6,
	devanagari:  0.4,
	thai:        0.5,
	vietnamese:  0.6,
	cjkSingle:   0.8,
	cjkMulti:    2.1,
	letter3:     0.7,
	letter4:     2.5,
	rarePerByte: 0.9,
	otherNumber: 1,

	punctFirst:     1,
	punctPerChar:   0.3,
	punctFree:      3,
	punctPerBit:    0.065,
	punctThreshold: 20,
	symbol2:        1,
	symbolPunct:    1,
	symbolCJK:      1.2,
	symbol3:        2.4,
	symbol4:        2,
	invalid:        0.7,

	space:     1,
	spaceSame: 1.0 / 16,
	spaceMix:  0.5,
	spaceOdd:  1,
}

// Character classes, as o200k_base's split expression sees them.
const (
	clLower uint8 = iota // \p{Ll}, \p{Lm}, \p{Lo}, \p{M}: letters that end a word's capitals
	clUpper              // \p{Lu}, \p{Lt}
	clDigit              // \p{N}
	clSpace              // ' '
	clWS                 // other whitespace but \r and \n
	clNL                 // \r, \n
	clPunct              // everything else
)

var asciiClass = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = clLower
		case c >= 'A' && c <= 'Z':
			t[c] = clUpper
		case c >= '0' && c <= '9':
			t[c] = clDigit
		case c == ' ':
			t[c] = clSpace
		case c == '\r' || c == '\n':
			t[c] = clNL
		case c == '\t' || c == '\v' || c == '\f':
			t[c] = clWS
		default:
			t[c] = clPunct
		}
	}
	return t
}()

// classAt classifies the character at s[i]: its class, its size in bytes and its
// rune (utf8.RuneError for an invalid byte).
func classAt(s string, i int) (cl uint8, size int, r rune) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1, rune(c)
	}
	return classNonASCII(s, i)
}

func classNonASCII(s string, i int) (cl uint8, size int, r rune) {
	r, size = utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return clPunct, 1, r
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return clUpper, size, r
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return clLower, size, r
	case unicode.IsNumber(r):
		return clDigit, size, r
	case unicode.IsSpace(r):
		return clWS, size, r
	}
	return clPunct, size, r
}

// vowels has bit c-'a' set for the vowels, y included.
const vowels = 1<<0 /* a */ | 1<<('e'-'a') | 1<<('i'-'a') | 1<<('o'-'a') | 1<<('u'-'a') | 1<<('y'-'a')

func isLetter(cl uint8) bool { return cl <= clUpper }

// symbolCost prices a non-ASCII punctuation or symbol character.
func symbolCost(r rune, size int) float64 {
	switch {
	case r == utf8.RuneError && size == 1:
		return est.invalid
	case size == 2:
		return est.symbol2
	case size == 4:
		return est.symbol4
	case r >= 0x2000 && r <= 0x20cf:
		return est.symbolPunct
	case r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef:
		return est.symbolCJK
	}
	return est.symbol3
}

// letterCost prices a non-ASCII letter; prevASCII tells whether the letter
// before it in the word is an ASCII one (or there is none).
func letterCost(r rune, size int, prevASCII bool) float64 {
	switch {
	case r < 0x250 && !prevASCII:
		return est.latinRun
	case r < 0x100:
		return est.latinAccent
	case r < 0x250:
		return est.latinExt
	case r >= 0x370 && r < 0x400:
		return est.greek
	case r >= 0x400 && r < 0x530:
		return est.cyrillic
	case r >= 0x590 && r < 0x600:
		return est.hebrew
	case r >= 0x600 && r < 0x700 || r >= 0x750 && r < 0x780:
		return est.arabic
	case size == 2:
		if !knownLetterBlock(r) {
			return est.rarePerByte * 2
		}
		return est.letter2
	case size == 4:
		return est.letter4
	case r >= 0x900 && r < 0x980:
		return est.devanagari
	case r >= 0xe00 && r < 0xe80:
		return est.thai
	case r >= 0x1e00 && r < 0x1f00:
		return est.vietnamese
	}
	if k := cjkIndex(r); k >= 0 {
		if cjkSingleToken[k>>3]&(1<<(k&7)) != 0 {
			return est.cjkSingle
		}
		return est.cjkMulti
	}
	if !knownLetterBlock(r) {
		return est.rarePerByte * 3
	}
	return est.letter3
}

// estimateTokens is the estimator behind O200k.Estimate: estimateCost rounded,
// and at least one token for a non-empty string.
func estimateTokens(s string) int {
	if s == "" {
		return 0
	}
	return max(1, int(estimateCost(s)+0.5))
}

// estimateCost is the estimated number of tokens of s, unrounded.
func estimateCost(s string) float64 {
	var t float64
	n := len(s)
	for i := 0; i < n; {
		c := s[i] // classAt, inlined by hand
		cl, size, r := asciiClass[c&0x7f], 1, rune(c)
		if c >= utf8.RuneSelf {
			cl, size, r = classNonASCII(s, i)
		}
		switch cl {
		case clLower, clUpper:
			var c float64
			c, i = wordCost(s, i)
			t += c
		case clDigit:
			// \p{N}{1,3}: ASCII digits in groups of three, each one token.
			j, k := i, 0
			var groups float64
			for j < n {
				if c := s[j]; c >= '0' && c <= '9' {
					if k%3 == 0 {
						groups++
					}
					k++
					j++
					continue
				}
				c2, sz, _ := classAt(s, j)
				if c2 != clDigit {
					break
				}
				groups += est.otherNumber
				k = 0
				j += sz
			}
			t += groups
			i = j
		case clPunct:
			if i+size < n {
				if c2, _, _ := classAt(s, i+size); isLetter(c2) {
					lead := est.leadPunct
					if r >= utf8.RuneSelf {
						lead = symbolCost(r, size)
					} else if k := punctIndex[r]; k >= 0 {
						lead = leadCost[k]
					}
					var c float64
					c, i = wordCost(s, i+size)
					t += c + lead
					continue
				}
			}
			var c float64
			c, i = punctCost(s, i)
			t += c
		default: // whitespace
			var c float64
			c, i = spaceCost(s, i)
			t += c
		}
	}
	return t
}

// spaceCost prices the whitespace at s[i:] and what it joins, returning where the
// next piece starts.
func spaceCost(s string, i int) (float64, int) {
	n := len(s)
	// The run of whitespace [i, j) and its last newline.
	j, lastNL := i, -1
	for j < n {
		cl, sz, _ := classAt(s, j)
		if cl != clSpace && cl != clWS && cl != clNL {
			break
		}
		if cl == clNL {
			lastNL = j
		}
		j += sz
	}
	var t float64
	if lastNL >= 0 {
		// \s*[\r\n]+: everything up to the last newline is one piece.
		t += wsPieceCost(s[i : lastNL+1])
		i = lastNL + 1
		if i == j {
			return t, j
		}
	}
	// The rest [i, j) has no newline.
	if j == n {
		return t + wsPieceCost(s[i:j]), j
	}
	// \s+(?!\S): all but the last character; the last one joins what follows
	// when it can, else stands alone.
	_, lsz := utf8.DecodeLastRuneInString(s[i:j])
	last := j - lsz
	if last > i {
		t += wsPieceCost(s[i:last])
	}
	next, _, _ := classAt(s, j)
	switch {
	case isLetter(next):
		c, end := wordCost(s, j)
		if s[last] != ' ' {
			c += est.leadOther
		}
		return t + c, end
	case next == clPunct && s[last] == ' ':
		c, end := punctCost(s, j)
		return t + c, end
	}
	return t + wsPieceCost(s[last:j]), j
}

// wsPieceCost prices one piece of whitespace: a run of one character is mostly
// one token, mixtures are not.
func wsPieceCost(s string) float64 {
	t := est.space
	var prev rune = -1
	for _, r := range s {
		switch {
		case prev < 0:
		case r == prev && r == ' ':
			t += est.spaceSame / 4
		case r == prev:
			if r < utf8.RuneSelf && r != '\v' && r != '\f' {
				t += est.spaceSame
			} else {
				t += est.spaceOdd / 8
			}
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
			t += est.spaceMix
		default:
			t += est.spaceOdd
		}
		prev = r
	}
	return t
}

// punctCost prices the run of punctuation at s[i:] with the newlines that follow
// it, returning where the next piece starts.
func punctCost(s string, i int) (float64, int) {
	n := len(s)
	t, k := est.punctFirst, 0
	prev := -1
	for i < n {
		cl, sz, r := classAt(s, i)
		if cl != clPunct {
			break
		}
		cur := -1
		if r >= utf8.RuneSelf || sz > 1 {
			t += symbolCost(r, sz)
		} else {
			k++
			cur = int(punctIndex[r])
			if k > 1 {
				ps := maxPunctSurprisal
				if prev >= 0 && cur >= 0 {
					ps = int(punctPairSurprisal[prev*32+cur])
				}
				t += est.punctPerBit * float64(max(0, ps-est.punctThreshold))
			}
		}
		prev = cur
		i += sz
	}
	for i < n && (s[i] == '\r' || s[i] == '\n') {
		i++
	}
	if k == 0 {
		t -= est.punctFirst
	}
	t += est.punctPerChar * float64(max(0, k-est.punctFree))
	return t, i
}

// wordCost prices the word starting at s[i] (a letter), returning where the next
// piece starts: capitals then lower-case letters, then an English contraction.
func wordCost(s string, i int) (float64, int) {
	n := len(s)
	start := i
	letters, upper, ascii := 0, 0, 0
	var surp, run, cluster int
	var other float64
	prev := -1
	seenLower := false
	for i < n {
		c := s[i] // classAt, inlined by hand: this is the hot loop
		cl, sz, r := asciiClass[c&0x7f], 1, rune(c)
		if c >= utf8.RuneSelf {
			cl, sz, r = classNonASCII(s, i)
		}
		if !isLetter(cl) || cl == clUpper && seenLower {
			break
		}
		if cl == clLower {
			seenLower = true
		} else {
			upper++
		}
		letters++
		cur := -1
		if r < utf8.RuneSelf {
			ascii++
			cur = int(r|0x20) - 'a'
			if vowels>>cur&1 == 0 {
				if run++; run > est.clusterFree {
					cluster++
				}
			} else {
				run = 0
			}
			if prev >= 0 && letters > 2 {
				// The first pair is free: almost every pair of letters is a token.
				surp += max(0, int(letterPairSurprisal[prev*26+cur])-est.surpThreshold)
			}
		} else {
			other += letterCost(r, sz, prev >= 0 || letters == 1)
		}
		prev = cur
		i += sz
	}
	var t float64
	if ascii > 0 {
		t = asciiWordCost(s, start, letters, upper, surp, cluster)
	}
	t = max(1, t+other)
	c, i := contraction(s, i)
	return t + c, i
}

// asciiWordCost prices a word with ASCII letters starting at s[start]: its
// length, its unlikely letter pairs (surp) and consonant clusters, and its
// capitals.
func asciiWordCost(s string, start, letters, upper, surp, cluster int) float64 {
	long := float64(max(0, letters-est.wordFree))
	t := est.wordBase + est.wordPerLetter*long + est.wordPerBit*float64(surp) + est.perCluster*float64(cluster)
	if upper > 0 && (upper < letters || letters == 1) && (start == 0 || s[start-1] != ' ') {
		// Capitalized, not all capitals, and no space before.
		t += est.capNoSpace + est.capPerLetter*long
	}
	if upper == letters {
		t += est.capsPerLetter * float64(max(0, letters-3))
	}
	if upper > 1 && upper < letters {
		// Capitals then lower case ("ACon", "BAXbias") split at the change.
		t += est.mixedCase
	}
	if start > 0 && s[start-1] < utf8.RuneSelf && asciiClass[s[start-1]] <= clDigit {
		// A word right after a letter or digit: a change of case ("Writer"
		// in ResponseWriter) or an id ("9fK").
		t += est.caseSplit
	}
	return t
}

// contraction prices an English contraction at s[i], the o200k pattern's
// (?i:'s|'t|'re|'ve|'m|'ll|'d), returning where the next piece starts (i
// when there is none).
func contraction(s string, i int) (float64, int) {
	n := len(s)
	if i+1 >= n || s[i] != '\'' {
		return 0, i
	}
	a := s[i+1] | 0x20
	switch {
	case a == 's' || a == 't' || a == 'm' || a == 'd':
		return est.contraction, i + 2
	case i+2 < n && (a == 'r' && s[i+2]|0x20 == 'e' || a == 'v' && s[i+2]|0x20 == 'e' || a == 'l' && s[i+2]|0x20 == 'l'):
		return est.contraction, i + 3
	}
	return 0, i
}

// letterPairSurprisal[a*26+b] is −log2 P(b follows a) over the letters of the
// o200k_base tokens made only of ASCII letters (an optional leading space
// aside), case folded, in quarter bits, capped at 63: how unlikely the pair is
// inside a token. TestPairSurprisalTables regenerates it from the encoder.
var letterPairSurprisal = [26 * 26]uint8{
	23, 20, 17, 17, 33, 26, 20, 26, 19, 30, 22, 13, 17, 11, 34, 20, 34, 12, 16, 12, 21, 23, 28, 32, 24, 29,
	11, 24, 29, 31, 9, 39, 36, 30, 12, 27, 38, 12, 31, 32, 13, 34, 45, 14, 20, 26, 15, 38, 32, 43, 25, 43,
	12, 39, 23, 34, 12, 39, 41, 10, 14, 42, 18, 19, 35, 36, 10, 34, 39, 18, 26, 14, 18, 43, 46, 47, 25, 34,
	12, 30, 32, 21, 7, 33, 28, 27, 10, 33, 37, 24, 28, 29, 13, 33, 41, 19, 19, 30, 17, 28, 30, 38, 25, 32,
	20, 27, 18, 15, 22, 25, 22, 29, 21, 33, 26, 16, 18, 10, 30, 24, 31, 9, 12, 17, 26, 24, 29, 23, 30, 29,
	12, 36, 33, 31, 11, 14, 30, 36, 9, 42, 37, 16, 35, 33, 12, 35, 45, 15, 24, 18, 16, 40, 36, 36, 25, 42,
	12, 28, 35, 30, 7, 37, 21, 17, 14, 36, 31, 19, 28, 19, 15, 33, 47, 13, 19, 24, 15, 40, 31, 42, 25, 42,
	9, 32, 37, 30, 8, 37, 40, 38, 11, 38, 35, 23, 26, 24, 11, 35, 38, 19, 27, 16, 17, 32, 29, 43, 22, 38,
	18, 24, 15, 18, 16, 23, 19, 33, 33, 26, 24, 17, 19, 9, 15, 23, 32, 19, 14, 14, 32, 20, 40, 32, 33, 24,
	10, 30, 33, 22, 8, 27, 32, 34, 16, 34, 17, 29, 31, 23, 11, 28, 35, 34, 20, 30, 11, 28, 29, 42, 34, 29,
	10, 30, 36, 31, 8, 33, 33, 25, 12, 32, 21, 20, 33, 23, 13, 32, 47, 21, 16, 17, 15, 33, 24, 47, 24, 38,
	11, 31, 30, 21, 9, 30, 28, 31, 10, 33, 28, 13, 27, 34, 14, 31, 43, 37, 20, 19, 18, 28, 37, 47, 18, 43,
	9, 17, 36, 33, 8, 34, 34, 35, 11, 42, 38, 28, 18, 29, 13, 14, 43, 37, 22, 30, 18, 39, 33, 43, 28, 43,
	14, 34, 17, 13, 13, 25, 11, 29, 15, 31, 25, 30, 33, 20, 18, 36, 37, 35, 14, 10, 23, 26, 36, 43, 26, 29,
	25, 23, 20, 20, 26, 25, 22, 30, 23, 30, 24, 15, 16, 9, 19, 19, 36, 11, 15, 18, 16, 21, 22, 31, 29, 33,
	11, 37, 29, 32, 10, 33, 34, 19, 15, 43, 37, 14, 32, 36, 12, 18, 43, 10, 21, 18, 18, 38, 38, 44, 28, 46,
	16, 32, 30, 30, 28, 36, 36, 31, 23, 42, 42, 21, 29, 33, 26, 32, 24, 24, 29, 25, 1, 32, 34, 38, 36, 42,
	11, 27, 23, 20, 9, 29, 23, 32, 12, 40, 24, 26, 21, 21, 13, 28, 37, 21, 16, 16, 20, 26, 32, 46, 22, 32,
	15, 34, 16, 33, 11, 32, 34, 17, 13, 40, 24, 24, 25, 30, 16, 17, 31, 34, 14, 9, 17, 32, 28, 44, 26, 33,
	12, 37, 27, 34, 8, 34, 37, 17, 9, 41, 37, 26, 31, 34, 14, 34, 50, 14, 17, 19, 18, 37, 30, 39, 21, 31,
	18, 20, 19, 20, 16, 25, 21, 30, 17, 31, 24, 15, 16, 12, 29, 19, 41, 12, 13, 14, 29, 27, 30, 29, 32, 30,
	10, 37, 34, 37, 5, 41, 34, 38, 9, 42, 41, 28, 35, 33, 12, 35, 48, 23, 31, 35, 25, 38, 36, 42, 31, 38,
	8, 31, 31, 27, 8, 33, 35, 18, 11, 37, 32, 25, 31, 17, 13, 33, 49, 21, 19, 30, 26, 36, 31, 34, 23, 42,
	14, 26, 14, 27, 12, 26, 43, 23, 11, 39, 36, 27, 23, 31, 20, 10, 33, 31, 29, 11, 22, 30, 30, 18, 22, 36,
	11, 24, 19, 19, 12, 31, 24, 34, 17, 38, 26, 17, 17, 15, 14, 15, 47, 20, 12, 19, 23, 34, 26, 41, 26, 27,
	10, 30, 31, 26, 7, 38, 31, 26, 10, 34, 32, 26, 28, 24, 14, 35, 38, 31, 35, 23, 17, 26, 23, 36, 20, 19,
}

// punctIndex numbers the 32 ASCII punctuation characters in ASCII order; -1
// for any other byte.
var punctIndex = func() (t [128]int8) {
	k := int8(0)
	for c := range t {
		t[c] = -1
		if c > ' ' && c < 127 && asciiClass[c] == clPunct {
			t[c] = k
			k++
		}
	}
	return t
}()

// leadCost is the cost of an ASCII punctuation character glued to the front of a
// word ("_rows", ".com", ",Brand"), numbered by punctIndex: o200k_base has many
// tokens for words after '.', '_', '-', '(' and '/' (identifiers, paths), few after
// the others, which then cost a token of their own.
var leadCost = func() (t [32]float64) {
	for c, k := range punctIndex {
		if k < 0 {
			continue
		}
		switch c {
		case '.':
			t[k] = 0.1
		case '_':
			t[k] = 0.2
		case '-', '(':
			t[k] = 0.3
		case '\'', '=':
			t[k] = 0.5
		case '/', '<', '@', '$', '#', '[', '\\':
			t[k] = 0.7
		default:
			t[k] = est.leadPunct
		}
	}
	return t
}()

// maxPunctSurprisal is the surprisal assumed for a pair involving a control
// character.
const maxPunctSurprisal = 40

// punctPairSurprisal[a*32+b] is −log2 P(b follows a) over the characters of the
// o200k_base tokens made only of ASCII punctuation (a leading space and
// trailing newlines aside), in quarter bits, capped at 63, a and b numbered by
// punctIndex. TestPairSurprisalTables regenerates it from the encoder.
var punctPairSurprisal = [32 * 32]uint8{
	6, 15, 31, 23, 31, 31, 19, 17, 17, 23, 31, 24, 19, 19, 24, 27, 27, 23, 16, 31, 23, 31, 21, 27, 27, 31, 23, 31, 31, 31, 27, 31, // '!'
	33, 13, 22, 24, 24, 30, 21, 28, 10, 27, 21, 13, 23, 16, 20, 20, 17, 22, 28, 14, 29, 29, 28, 22, 18, 33, 26, 30, 24, 30, 22, 32, // '"'
	31, 24, 1, 34, 34, 38, 30, 34, 38, 38, 22, 34, 30, 31, 34, 31, 38, 38, 38, 38, 38, 38, 31, 38, 38, 38, 30, 38, 26, 38, 38, 38, // '#'
	28, 17, 24, 16, 28, 28, 22, 9, 28, 28, 28, 22, 28, 19, 18, 24, 28, 28, 28, 24, 24, 28, 28, 22, 28, 28, 14, 28, 8, 28, 28, 28, // '$'
	25, 14, 25, 29, 5, 29, 19, 20, 16, 29, 25, 23, 23, 18, 29, 29, 19, 25, 23, 29, 29, 19, 25, 25, 29, 25, 29, 29, 25, 29, 25, 29, // '%'
	21, 25, 14, 18, 25, 12, 21, 14, 15, 25, 25, 18, 25, 25, 25, 18, 25, 25, 21, 25, 25, 25, 21, 25, 21, 25, 14, 25, 25, 25, 25, 25, // '&'
	34, 18, 23, 25, 26, 28, 14, 29, 10, 27, 22, 12, 25, 15, 19, 22, 19, 22, 24, 24, 29, 29, 28, 25, 13, 32, 24, 34, 23, 30, 21, 32, // '\''
	23, 10, 31, 20, 29, 23, 12, 16, 7, 22, 28, 33, 25, 23, 25, 25, 28, 31, 33, 33, 25, 29, 19, 28, 37, 28, 20, 25, 21, 31, 37, 31, // '('
	30, 21, 36, 34, 34, 29, 25, 22, 8, 29, 26, 15, 24, 15, 27, 19, 8, 27, 23, 29, 26, 40, 23, 32, 19, 36, 32, 32, 18, 31, 19, 40, // ')'
	31, 35, 41, 41, 45, 41, 41, 31, 26, 0, 45, 34, 34, 33, 22, 41, 33, 34, 38, 32, 41, 38, 34, 38, 45, 45, 37, 45, 45, 45, 41, 45, // '*'
	31, 13, 17, 27, 31, 31, 16, 23, 17, 31, 6, 25, 14, 25, 25, 23, 20, 27, 20, 31, 31, 31, 27, 25, 22, 31, 31, 31, 31, 31, 31, 31, // '+'
	26, 11, 26, 20, 26, 24, 10, 21, 20, 26, 26, 18, 19, 17, 24, 17, 30, 26, 30, 30, 21, 24, 17, 20, 26, 26, 24, 26, 16, 30, 26, 30, // ','
	46, 33, 42, 38, 42, 42, 34, 37, 33, 36, 31, 40, 0, 40, 42, 46, 37, 34, 31, 25, 46, 42, 38, 42, 42, 46, 42, 46, 40, 42, 36, 42, // '-'
	33, 15, 35, 21, 35, 35, 18, 29, 21, 24, 35, 28, 31, 3, 15, 33, 33, 28, 31, 39, 31, 35, 29, 29, 25, 33, 26, 29, 33, 33, 39, 35, // '.'
	31, 22, 31, 28, 36, 36, 22, 29, 30, 19, 36, 28, 27, 20, 2, 32, 36, 28, 32, 20, 36, 32, 32, 28, 36, 30, 32, 40, 29, 40, 29, 34, // '/'
	32, 14, 28, 22, 28, 28, 17, 23, 18, 21, 24, 18, 17, 22, 21, 8, 26, 23, 23, 32, 24, 23, 17, 22, 19, 24, 23, 28, 18, 32, 32, 28, // ':'
	29, 12, 29, 25, 25, 23, 19, 25, 16, 23, 23, 25, 20, 25, 15, 29, 8, 23, 25, 29, 13, 29, 29, 20, 25, 25, 29, 29, 29, 29, 16, 29, // ';'
	18, 20, 27, 23, 27, 27, 27, 22, 31, 27, 31, 31, 23, 31, 7, 25, 31, 10, 20, 17, 11, 31, 27, 27, 31, 27, 27, 31, 27, 31, 31, 31, // '<'
	38, 18, 36, 27, 38, 36, 21, 29, 36, 36, 42, 42, 25, 36, 38, 38, 42, 36, 1, 23, 33, 38, 28, 31, 42, 42, 38, 38, 24, 42, 38, 38, // '='
	34, 12, 30, 20, 27, 22, 14, 13, 21, 27, 34, 23, 26, 23, 23, 23, 22, 12, 23, 12, 30, 27, 25, 23, 30, 34, 25, 26, 15, 30, 23, 34, // '>'
	20, 15, 24, 27, 31, 31, 20, 24, 17, 31, 31, 16, 27, 17, 27, 23, 21, 24, 17, 8, 10, 31, 27, 27, 31, 31, 27, 31, 31, 27, 27, 31, // '?'
	25, 10, 25, 18, 25, 25, 25, 18, 25, 25, 25, 25, 25, 25, 17, 21, 25, 25, 25, 25, 25, 10, 18, 21, 25, 25, 17, 25, 18, 25, 25, 25, // '@'
	31, 15, 25, 21, 23, 25, 12, 21, 31, 27, 23, 23, 21, 17, 23, 18, 31, 31, 31, 31, 27, 22, 16, 25, 7, 25, 23, 25, 18, 31, 31, 31, // '['
	28, 6, 28, 21, 28, 28, 16, 20, 28, 28, 28, 24, 24, 19, 15, 24, 28, 19, 28, 28, 28, 28, 24, 11, 28, 28, 28, 28, 28, 28, 28, 28, // '\\'
	27, 18, 35, 35, 31, 31, 22, 22, 8, 26, 24, 13, 26, 17, 25, 21, 13, 25, 17, 22, 25, 35, 17, 29, 14, 31, 31, 35, 26, 31, 19, 35, // ']'
	24, 24, 24, 24, 24, 24, 24, 16, 18, 24, 24, 24, 20, 20, 24, 24, 24, 24, 20, 24, 24, 24, 18, 18, 24, 8, 24, 24, 14, 24, 24, 24, // '^'
	36, 25, 32, 26, 32, 36, 25, 18, 19, 30, 36, 24, 30, 24, 30, 26, 22, 30, 32, 36, 36, 36, 27, 32, 32, 30, 2, 36, 28, 30, 36, 36, // '_'
	27, 23, 23, 16, 23, 27, 23, 20, 13, 27, 27, 15, 27, 16, 19, 23, 15, 20, 27, 27, 27, 27, 20, 23, 20, 27, 23, 13, 23, 23, 15, 27, // '`'
	21, 16, 31, 15, 24, 31, 19, 19, 31, 24, 31, 31, 19, 23, 19, 20, 31, 27, 31, 31, 24, 19, 23, 19, 31, 31, 24, 23, 12, 24, 8, 31, // '{'
	25, 19, 25, 25, 25, 25, 21, 14, 21, 25, 25, 21, 16, 21, 25, 25, 21, 25, 17, 21, 25, 25, 25, 19, 25, 25, 19, 19, 21, 8, 21, 25, // '|'
	31, 14, 35, 27, 31, 31, 19, 25, 10, 27, 31, 13, 24, 23, 22, 25, 15, 20, 31, 16, 28, 31, 31, 23, 21, 31, 25, 19, 23, 31, 11, 35, // '}'
	27, 23, 27, 23, 27, 27, 27, 23, 27, 27, 27, 23, 19, 27, 16, 27, 27, 27, 21, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 27, 3, // '~'
}

// letterBlockBits is the size of a block of letterBlockKnown: 32 code points.
const letterBlockBits = 5

// knownLetterBlock reports whether r, a letter or mark of two or three bytes,
// is in a block of 32 code points where o200k_base has a one-token letter.
// Elsewhere (Cherokee, Yi, Vai, Canadian syllabics, Tifinagh, runes, about
// 14,000 letters) o200k_base has almost no tokens: a letter costs about a token
// a byte whatever the text, where a letter of a known script costs under one.
func knownLetterBlock(r rune) bool {
	k := int(r) >> letterBlockBits
	return k >= len(letterBlockKnown)*8 || letterBlockKnown[k>>3]&(1<<(k&7)) != 0
}

// letterBlockKnown has bit r>>letterBlockBits set when a letter or mark of that
// block of the BMP, or any kana, CJK or Hangul character (priced on their own),
// is one o200k_base token. TestLetterBlockKnownTable regenerates it.
var letterBlockKnown = func() []byte {
	b, err := base64.StdEncoding.DecodeString(letterBlockKnownBase64)
	if err != nil {
		panic(err)
	}
	return b
}()

const letterBlockKnownBase64 = "" +
	"4H9tc/f+fgAA9393d383CN8AAAAAAABwAAAAAAAA782AAgAAAAAAAAAAAAAAAAAA/RwAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
	"AAAAAAAA////////////////////////////////////////////////////////////////////////////////////////" +
	"/////////////////////wAAAAAAAAAAAAAAAP////////////////////////////////////////////////////////8/" +
	"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAABHg=="

// cjkIndex numbers kana (U+3040–U+30FF), CJK ideographs (U+4E00–U+9FFF) and
// Hangul syllables (U+AC00–U+D7AF) for cjkSingleToken; -1 for other runes.
func cjkIndex(r rune) int {
	switch {
	case r >= 0x3040 && r <= 0x30ff:
		return int(r - 0x3040)
	case r >= 0x4e00 && r <= 0x9fff:
		return 0x100 - 0x40 + int(r-0x4e00)
	case r >= 0xac00 && r <= 0xd7af:
		return 0xc0 + 0x5200 + int(r-0xac00)
	}
	return -1
}

// cjkSingleToken has bit cjkIndex(r) set when r alone is one o200k_base token
// (3,345 of the 32,368 characters): those cost about one token or less, the
// others two or three. TestPairSurprisalTables regenerates it from the encoder.
var cjkSingleToken = func() []byte {
	b, err := base64.StdEncoding.DecodeString(cjkSingleTokenBase64)
	if err != nil {
		panic(err)
	}
	return b
}()

const cjkSingleTokenBase64 = "" +
	"1v3///vv7/v/vwwA3v///9vv////v1g4i29YNXAlVW8oW5GjQwALQETbNkzSegSEI2x4AzgUxCgCpIKnUYAREUDgKRoJAgiA" +
	"QAgAKIuAIIAcBIAgAkACBAAoBoISCABUgIAAFCAA0IAgAAACABGIAACgIAAAAAACEAAAAAAEAIB6KxcEoDv7OWA1BBoBEK0I" +
	"QZIAIFOgAS3BBIYvMQrBDYQkAgCQhiQAgAAAyAMHDoKAACSiFAAAgCAAwAIAAAAOi8X8BYcImwFkCiCFQAEAiAx/0gF4nM0B" +
	"GHejyMCZEEsBBQABBAEoOAAYQAAABQAAAiEAAGIkBAAAAAEAAMACAECEAABgBAAAEAQAMQBAwAAAQAAAAIAAAABCAAgAABCA" +
	"AAAAEAABAAAAAAAAAAAAAAAAAEgNIB1kQAlEgQgBCUSFhIMsQgQAAAgIAAAAAAAACEAQgAAAAAYEAAAAAgAyAAAAEkEACAAA" +
	"CACIQgABAACCAAAAAEgFAJCiYJSEThIGgIvSACAA2COEAUhCAEAACkAIGxQAAQCAigAAGQAAAgBAAAAEQACAAAAABAAAAAgg" +
	"BhAAAAACAAAAAgAAAAAAAAAAsYNYAgABqpuA9R9IWOJQEAygQAlA39btUiQQAAL1J4wgQCCAAgACAIAIAiIIAQAAAAACAEEA" +
	"AEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAYOJBFgguEUEgQOhJISAAIAAAAFy5WIS4kMAogAAAAgAACADABB2EoIEBAKIG" +
	"AAAsAEQCAxozGYVAAkaYIGgggBOBCCAgA0BkIKIEAAgACAUABIJAAAACAIBJBQQAIAQCEAGBCAAAgACIAAAAgABJAACEAAEA" +
	"AAAAAAAAAAAEAgAAAAAAAAGARwFABNWJAWguAYgaQ8IBBKhRNAgiMGAiXJkgEwjQhgICACqAAAQAACCABECAAAgTBAimBQQA" +
	"AIIFCAIgEAAAgABQADAABNAAAAEAAgABCAAGQBBgAAEAJAAEQAAAAAAAACAAgEDKIJGCAkwQMQGAAIACEKABMiKIgADlM0AE" +
	"RFAYgCGhAFAECAwEAMFRBIQAwgAAQRAAAAAAMAAAFdMJK4CoAL0CBE3CA5AioQPAEgCBNAAEQAAQgBkQIAAaCICIggACBIAT" +
	"TBECACgAQAAiAAAgQIEBAAEIBAQAQAAAACAEEAAAAAAAAAAEACAgMAQAABAAAAAAAAgAAQAAACAEAAgCCgQAAAAIAIAAAABC" +
	"AAAAAAAAAAAAAAAAAAAAAAAEAACPAAREABIIAH4CnAgADEAAAAAgBCLgNAgACAAAAICSAIgAEAGGAoCAEwAAJAoDRIIGBAiK" +
	"EgYgCCYBCSACCIBIIAQESGJICBBARpAAAAMICkCDJAAAAAABAgiCCCABAQgDkgABAABAAQAAAMABAEEAAAQAAAAIAgQSARCA" +
	"BIAQAAQIAAAAABARAGAAAAAAAAACAAgAAQAAAAAAAAAAAAAAAAAAAAAAAAAIqCFAAEIEAABAABcAAQCAwCAAAAAAAABCAEAQ" +
	"ABAAApAAAAAABACAAAACAAgAIIAAAAAAQAAAAAAA4yGAEQAKhgIEAgAAAAAAkEAABACBAAEQABEAQAAYAEwQAAAAAAAAAAAB" +
	"kApACACCBQgAIAAAASAAQEgAAAAABBgAAAAAQAAAAAAIAAAAAAABAAAAABBIAEAAAAAAlQwBrw0gEAACIAxBAEAAggAAiARQ" +
	"oAAACAAAAAAAAAAAAAAAAAQQAAAAAAB80AAAAABAAABABceJGEAQQQIaAIABAAAQAQAACAoAAAAAAAAAABAAAAAAAAAgIgiA" +
	"BgBQAAAAEAABACAAAFAAAABgAgAAAAEUAgAAAAABAAAAAAAAAAAAVAAAQGAgIQAAAoAAAIAAAGgDKAaBQIABCABoAAAAQAqA" +
	"QCAAAAAAUIQCIIAgIAAAAAAIAMIhgEACAAASAEAQAABAClIIAAAAQgEAgAACIAIAgQIAAABAAAAAAAAAAgAAAAAgAAAAAAgI" +
	"AAKEABBAAEAAAGAAAAAACDEgEAaFiAECFBABAEIARgAAAAgEACAEAACABAQBAQAAEAAAAABAAGACAAAAAAAAAAAQAADFlKyj" +
	"2KEqs4AmEJAAAEgBAAIQBAAAggQARgQAIEQAQBACACACEBQAAQAAGCsQgQAAAAgAABQQRQCEhAAIEkAAMoIEBEhQQFACAEAh" +
	"BAACBAAAAgEAACEAAAAJwgAAABAAAAAgAQAAAAgkGASAIZTAABQBAoAAAAAAgIxEBAAAIACQCiEAoIIAYAACAAgAAAAAAEAB" +
	"AAIFAAqAgAAAQghAAAiGAAAQABAAgAQAEBAAICARACAAAoAICgAAAAQAAAIAAAQAAAAAIAAAAAAAAAAAAgAAAAACAAAAAgAA" +
	"EAAAAEAUAAAAgAAgEAAAAAAAAAAAAAAAAEAjhAAIACIAAAAAAAAAAIAIAAgAAAAABAAAEAAAAAAAAAAAAABAAAAgAAAAAAAA" +
	"AAAAAAAAAAAAAAAAAAAAAAEQiAgqAQAAAAhAEAAoAAAmgCAyEAAAIQAAAAAAAAAAAAAAAAAEAIBCiEAEgAQIIFcDBABIAAAA" +
	"BUUAAQAkChQAACBARAAKAAAyAEEANAWAgAhAAAAAAAAAAAAoAAAAAAACAAFAAIEAAQQIABbjBcVTJ6IkZKCSTQoJCBAEAYIA" +
	"QAQAAAIEAAIAEAAAAxOAGYEAAEAABAAQAAAAoP6psAMSmFBMFQjxACAMAAAIAAgACBACoACBKAAAgAAAAAYAAAAAAAAAAAAA" +
	"AgAAAAAIAAAAJAAABAAAIAgCAAAAhAABAAIAAEDTEChoAkpISAEHdqJBE/sADIEiT4YVhgkABhmEbLgAKWIggREAAgBIRAAI" +
	"AEACAAAhICAAAAAAAAAAAAAgBAAAAIABAAIEAAAIAACA9AIAAAAAAAAAAAAAAAAAEAAAAAAAEAABAAAAAAAAAAAAAAAAAAAA" +
	"EAAAAACABAAAAAAAAAAgAAAAAAAAAAAAAAEAAAAAAAAAAAABAAAAAAAAAAAACAAAAAEAgCRAAggKAAAQACBARCMIAQJCQAAA" +
	"gAAAEAAAgIABCggABAAGAAAAABAAZRQIIgAAgAAEfIhwMQEAFAbhJEDEERgAAABAcQAiQgwFwAiBIABAAAAEAQAAREIFAgAA" +
	"AAgAAAAAAAAAAAgAAAIIgG4BAQEAIAAYADAQQQAAYM5QAMIxAAEAAABAAMgAgAQAAAQBAAABAAAAAAAAAGABAEABQAIAEQAA" +
	"IAAAAAAAAAAAAAgAAAAAAAAAgAAAEENIABCCBBABAQAAABABAAAAAAAAAAAAAAAQJIAQBAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
	"AAAAAAAAAAAAAAAAAAAAEAIAABAAAAABAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIAKIACA" +
	"IIAAAAAAAYAAAICAQAAAGBhABkEAAAAAAEAIAAEAAAgAAAEABAAAABAgAAIAAAAAAAAAAAAAAAATAScyAAAAAAAAAAAAABEB" +
	"CxAAAAETATAQAAAAEwEoEAEAAgAAABAAAAABAAAwEQACEAAAAAAAAAEAABABAAATAQMAAAAAEQEBEBAAAAEAAAAAAAAAAAAQ" +
	"AAAAAQAAEAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAEAAQAAAAAAAAAAAAAAAAAAEBAQIAAAABAAEAARARMQEQABAQAgAAAA" +
	"AAEBARAAgAATACEAAAAAEQEgDAAAAAAAAAAAAAAAAAAQAQAAAAAAAAAAAAAAABAAAAARASAAAAAAEwAhMBmwAgEACAAAAAAA" +
	"AAAwARAAAQEAAAAAAAAAADARAAIAAAAQAAABEQEDAAAAAAEBAAAAAAAAAAAQAAAAAAAAMBGAAgAAABAAAAIBAAAQAAAAAAAA" +
	"AAAAABEAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgAAAAAAAAAMAEwAhMACyAA" +
	"AAIAAAAwETCAEwAIMBEwAwEAADARoAAAAAAAAAAAAQAAEAAAAAEAAwAAAAAAAAAAAAAAAQEAEBEQAAAAADARsAJTAWgwAQAA" +
	"AAAAAAAAABMBABABAAARAKAAAAAAEwEJAAAAAAAAAAAAAAAAAAAQEQAAAAAAAAAAAAAAABAAAAABAAAAAAAAEQGgcBkQAgMA" +
	"AAAAAAAAAAAQETAAEQEAIBEAAgAAADARAAIBABAAAAAAAAAAAAAAABMBAAIAAAAAAAAAAAAAAQAAEBAAAAAAABARAAoBAAAA" +
	"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAARAAAAAAAAAAAAMBEQ" +
	"AgMAIAAAIAAAAAAwESACEQEAEBEAAQAAADARAAIAAAAQAAAAAAAAEAAAABMBAQAAAAAAAAAQACAAAQAAEBGwAgAAADARMEIB" +
	"AAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAARAAEAAAAAEwAA" +
	"MBUwQxMBADAAAAIAAAAwEfABEQEAMBEQAwEAADARIAARADAQAAAAAQAAMAAAAhMBCRARAAEBAAIQAQAAEwEgEBEQAgEAADAx" +
	"MAETASMQAAACAAAAAAAAABMBIzABAAABABAAAAAAEwAhGAAAAAAAABAAAAABAAAwEQACAQAAAAAAAAAAAAAAAAARASEAAAAA" +
	"EwErMAAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" +
	"ADAAAABTAWEwAAAAAAAAAAAAABMBKRAAAAABABAAAAAAEwAgAAAAAAAAABAAAAAAAAAwERACAQAAAAAAAAEAAAAAAAADACAA" +
	"AAAAEwEhEBAAAAEAAAAAAAAAAAAQETAAAQAIEAAAAAAAABARAAIAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAAAAAAAAAQAAEBEQ" +
	"AAAAABARAAITASAwAAAAAAAAAAAAABEBADAREAAAAAAAAAAAEwAgAAAAAAAAABAAAAAAAAAQAAAAAAAAAAAAAAEAABAAAAAT" +
	"AQAAAAAAEwAhEBEAABMAAAAAAAAAAAAQAAAAAQAAEAEAAgEAADAREAAAAAAAAAAAAAAAEAAAAAEBIQAAAAAAAAAAAAAAAQAA" +
	"EBEAAAAAADARgAITASMQAAADAAAgAAAAABEAARAAAAATASIQAAAAEwEhMBEAAgAAADAAAAABAAAQAQAAAAAAAAAAAAEAABAA" +
	"AAAAACIQAAAAEQABAAA="
