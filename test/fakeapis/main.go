// Command fakeapis runs local fakes of the ad platforms' APIs that adsmcp
// reads live — Meta Marketing API, Google Ads API (with its OAuth token
// endpoint), TikTok API for Business — and writes an adsmcp config file whose
// sources point at them, so live mode can be tried, measured and demonstrated
// without an ad account:
//
//	go run ./test/fakeapis -config fakes.yaml
//	go run ./cmd/adsmcp accounts --config fakes.yaml
//
// The fakes are the ones the connectors' tests use (metatest, googleadstest,
// tiktoktest): real HTTP servers speaking each API's documented formats,
// errors, paging and async reports, serving the demo generator's data. It
// runs until interrupted (SIGINT, SIGTERM), then stops the fakes; the config
// file stays. docs/fakeapis.md describes the options and what each fake
// implements.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/source/fakescale"
	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "fakeapis:", err)
		os.Exit(1)
	}
}

// Ready is the last line run prints once the fakes serve: a program starting
// it can wait for this line.
const Ready = "Serving until interrupted (Ctrl-C)."

// header starts every config file run writes: run overwrites a file only if
// it starts so, never a config the user wrote.
const header = "# Written by go run ./test/fakeapis"

// options are the command line's.
type options struct {
	config  string
	scale   fakescale.Scale
	latency time.Duration
	addr    string
}

func parse(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("fakeapis", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.config, "config", "", "the adsmcp config `file` to write (required); an existing file is overwritten only if this command wrote it")
	scale := fs.String("scale", "", "the data's size, `accounts=N,days=D,campaigns=F` (any of them): N accounts per platform (default: the demo's 6 Meta, 5 Google, 3 TikTok; "+
		"more are replicas of them), D days ending yesterday (default 400), F the fraction of each account's campaigns kept (default 0.06)")
	seed := fs.Uint64("seed", 42, "the demo data's seed: the same seed, scale and -today give the same data")
	today := fs.String("today", "", "the day after the data ends, `YYYY-MM-DD` (default: today, so that date presets such as last_7d have data)")
	fs.DurationVar(&o.latency, "latency", 0, "a delay added to every API request, e.g. 200ms")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "loopback `host:port` of the first fake (Meta); the next two take the next ports (port 0: any free ports)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run ./test/fakeapis -config FILE [-scale accounts=N,days=D] [-latency 200ms] [-seed S] [-today YYYY-MM-DD] [-addr 127.0.0.1:0]\n\n"+
			"Runs local fakes of the Meta, Google Ads and TikTok APIs and writes an adsmcp config\nfile pointing at them (docs/fakeapis.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (flags only; see -h)", fs.Args())
	}
	if o.config == "" {
		return nil, errors.New("-config FILE is required: the adsmcp config file to write")
	}
	if o.latency < 0 {
		return nil, fmt.Errorf("-latency %s: want a positive duration", o.latency)
	}
	o.scale = fakescale.Scale{Days: 400, Seed: *seed, Anchor: time.Now().UTC()}
	if *today != "" {
		t, err := time.Parse(time.DateOnly, *today)
		if err != nil {
			return nil, fmt.Errorf("-today %q: want YYYY-MM-DD", *today)
		}
		o.scale.Anchor = t
	}
	y, m, d := o.scale.Anchor.Date()
	o.scale.Anchor = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if err := parseScale(*scale, &o.scale); err != nil {
		return nil, err
	}
	return o, nil
}

// parseScale reads -scale's key=value list into s.
func parseScale(text string, s *fakescale.Scale) error {
	if text == "" {
		return nil
	}
	for part := range strings.SplitSeq(text, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		var err error
		switch key {
		case "accounts":
			s.Accounts, err = strconv.Atoi(value)
			if err == nil && s.Accounts < 1 {
				err = errors.New("want at least 1")
			}
		case "days":
			s.Days, err = strconv.Atoi(value)
			if err == nil && (s.Days < 1 || s.Days > 3660) {
				err = errors.New("want 1 to 3660")
			}
		case "campaigns":
			s.Campaigns, err = strconv.ParseFloat(value, 64)
			if err == nil && !(s.Campaigns > 0 && s.Campaigns <= 1) {
				err = errors.New("want a fraction in (0, 1]")
			}
		default:
			return fmt.Errorf("-scale %q: unknown key %q (want accounts=N, days=D, campaigns=F)", text, key)
		}
		if err != nil {
			return fmt.Errorf("-scale %s: %w", part, err)
		}
	}
	return nil
}

// running is one fake serving: what closes it, its URL and accounts, and
// its section of the adsmcp config (YAML under sources:, indented by two).
type running struct {
	close    func()
	url      string
	accounts []ads.Account
	section  string
}

// platform is one fake API the program runs. A new live platform is one
// entry here (docs/developing.md, "Add a live source").
type platform struct {
	name  string // the catalog platform, as printed
	label string // in messages
	start func(sc *fakescale.Scale, s fakescale.Serving) (*running, error)
}

// platforms are the fakes, in the order of their ports.
var platforms = []platform{
	{"meta_ads", "the Meta fake", func(sc *fakescale.Scale, s fakescale.Serving) (*running, error) {
		f, err := metatest.Start(metatest.Config{Scale: sc, Serving: s, Standalone: true})
		if err != nil {
			return nil, err
		}
		return &running{f.Close, f.URL, f.Accounts(), fmt.Sprintf("  meta:\n    access_token: %s\n    base_url: %s\n", f.Token(), f.URL)}, nil
	}},
	{"google_ads", "the Google Ads fake", func(sc *fakescale.Scale, s fakescale.Serving) (*running, error) {
		f, err := googleadstest.New(googleadstest.Config{Scale: sc, Serving: s, Standalone: true})
		if err != nil {
			return nil, err
		}
		return &running{f.Close, f.URL, f.Accounts(), fmt.Sprintf("  google_ads:\n    client_id: %s\n    client_secret: %s\n    refresh_token: %s\n    base_url: %s\n    token_url: %s\n",
			googleadstest.ClientID, googleadstest.ClientSecret, googleadstest.RefreshToken, f.URL, f.TokenURL)}, nil
	}},
	{"tiktok_ads", "the TikTok fake", func(sc *fakescale.Scale, s fakescale.Serving) (*running, error) {
		f, err := tiktoktest.Start(tiktoktest.Config{Scale: sc, Serving: s, Standalone: true})
		if err != nil {
			return nil, err
		}
		return &running{f.Close, f.URL, f.Accounts(), fmt.Sprintf("  tiktok:\n    access_token: %s\n    app_id: \"%s\"\n    app_secret: %s\n    base_url: %s\n",
			f.Token(), f.AppID(), f.AppSecret(), f.URL)}, nil
	}},
}

// fakes are the running fakes, in platforms' order.
type fakes []*running

func (f fakes) Close() {
	for _, r := range f {
		r.close()
	}
}

// start starts the fakes on consecutive loopback ports.
func start(o *options) (_ fakes, err error) {
	host, port, err := net.SplitHostPort(o.addr)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: %w", o.addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("-addr %q: serve on loopback (127.0.0.1): the fakes accept well-known fake credentials", o.addr)
	}
	first, err := strconv.Atoi(port)
	if err != nil || first < 0 || first > 65535-len(platforms)+1 {
		return nil, fmt.Errorf("-addr %q: want a port from 0 to %d", o.addr, 65535-len(platforms)+1)
	}
	var f fakes
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	sc := o.scale
	for i, p := range platforms {
		port := 0
		if first != 0 {
			port = first + i
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return f, fmt.Errorf("listening: %w", err)
		}
		r, err := p.start(&sc, fakescale.Serving{Listener: ln, Wrap: delay(o.latency)})
		if err != nil {
			ln.Close()
			return f, fmt.Errorf("%s: %w", p.label, err)
		}
		f = append(f, r)
	}
	return f, nil
}

// delay is the middleware adding a latency to every request (nil for none).
func delay(d time.Duration) func(http.Handler) http.Handler {
	if d <= 0 {
		return nil
	}
	return fakescale.Latency(func() time.Duration { return d })
}

// config is the adsmcp config file for the fakes.
func (f fakes) config(o *options) string {
	sc := o.scale
	var b strings.Builder
	fmt.Fprintf(&b, `%s -config %s (seed %d, %d days to %s): adsmcp's live
# sources pointed at local fakes of the ad platforms' APIs, which stop when it stops.
# The credentials are the fakes' own, not secrets.
sources:
`, header, o.config, sc.Seed, sc.Days, sc.Anchor.AddDate(0, 0, -1).Format(time.DateOnly))
	for _, r := range f {
		b.WriteString(r.section)
	}
	return b.String()
}

// mayWrite refuses a config file this command did not write: it never
// replaces a config the user wrote.
func mayWrite(path string) error {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !strings.HasPrefix(string(old), header):
		return fmt.Errorf("-config %s: the file exists and was not written by this command; name another file (it is left as it is)", path)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("-config: %w", err)
	}
	return nil
}

// run starts the fakes as args say, writes the config file, prints what
// serves where and the commands to try, and serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if err := mayWrite(o.config); err != nil {
		return err
	}
	started := time.Now()
	f, err := start(o)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.WriteFile(o.config, []byte(f.config(o)), 0o600); err != nil {
		return fmt.Errorf("-config: %w", err)
	}
	fmt.Fprintf(stdout, "Fake ad platform APIs (seed %d, %d days to %s, ready in %s):\n", o.scale.Seed, o.scale.Days,
		o.scale.Anchor.AddDate(0, 0, -1).Format(time.DateOnly), time.Since(started).Round(time.Millisecond))
	latency := ""
	if o.latency > 0 {
		latency = fmt.Sprintf("; each request delayed %s", o.latency)
	}
	for i, r := range f {
		fmt.Fprintf(stdout, "  %-10s %s  %s%s\n", platforms[i].name, r.url, accountList(r.accounts), latency)
	}
	fmt.Fprintf(stdout, "Wrote %s. Try:\n", o.config)
	fmt.Fprintf(stdout, "  go run ./cmd/adsmcp accounts --config %s\n", o.config)
	fmt.Fprintf(stdout, "  go run ./cmd/adsmcp query --config %s -p tiktok_ads -m spend,clicks,conversions -d campaign_name --preset last_7d\n", o.config)
	fmt.Fprintf(stdout, "  go run ./cmd/adsmcp serve --config %s\n", o.config)
	fmt.Fprintln(stdout, Ready)
	<-ctx.Done()
	return nil
}

// accountList says how many accounts and names the first few.
func accountList(as []ads.Account) string {
	const shown = 3
	var ids []string
	for i, a := range as {
		if i == shown {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, a.AccountID+" ("+a.AccountName+")")
	}
	noun := "accounts"
	if len(as) == 1 {
		noun = "account"
	}
	return fmt.Sprintf("%d %s: %s", len(as), noun, strings.Join(ids, ", "))
}
