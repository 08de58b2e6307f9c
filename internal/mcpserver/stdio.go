package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one inbound JSON-RPC message on stdio (the SDK's
// default line limit).
const MaxMessageBytes = mcp.DefaultMaxLineLength

// NewStdioTransport is the stdio transport of `adsmcp serve`: newline-delimited
// JSON-RPC over in and out (os.Stdin and os.Stdout).
//
// It differs from mcp.StdioTransport in one way: the SDK ends the session on the
// first line that is not a JSON-RPC message. Here such a line is answered with a
// JSON-RPC error — parse error (-32700) for malformed JSON, invalid request
// (-32600) for valid JSON that is not a message, for a batch, or for a line
// over MaxMessageBytes — and the server goes on with the next line. Everything
// written to out is a whole JSON-RPC line.
func NewStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return newStdioTransport(in, out, MaxMessageBytes)
}

func newStdioTransport(in io.Reader, out io.Writer, maxBytes int) mcp.Transport {
	w := &lineWriter{w: out}
	return &mcp.IOTransport{
		Reader: &lineGuard{in: in, r: bufio.NewReaderSize(in, 64<<10), out: w, max: maxBytes},
		Writer: w,
	}
}

// lineWriter serializes whole-line writes from the SDK and from lineGuard.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close does not close stdout: the process may still log a last line to
// stderr, and the SDK's own stdio transport leaves it open too.
func (l *lineWriter) Close() error { return nil }

// lineGuard hands the SDK only lines that are JSON-RPC messages, and answers
// the others itself.
type lineGuard struct {
	in      io.Reader
	r       *bufio.Reader
	out     *lineWriter
	max     int
	pending []byte
	err     error
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		line, tooLong, err := g.readLine()
		g.err = err
		if tooLong {
			g.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes", g.max))
			continue
		}
		if g.admit(line) {
			g.pending = append(line, '\n')
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *lineGuard) Close() error {
	if c, ok := g.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// readLine returns the next line without its end. A line longer than max is
// read to its end and dropped (tooLong). err is set at the end of input, after
// the last line.
func (g *lineGuard) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := g.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > g.max+2 { // +2: the line end
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// admit reports whether line is a JSON-RPC message for the SDK; otherwise it
// answers it (blank lines are ignored).
func (g *lineGuard) admit(line []byte) bool {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return false
	case !json.Valid(line):
		var v any
		g.reject(nil, jsonrpc.CodeParseError, "parse error: "+errText(json.Unmarshal(line, &v)))
		return false
	case line[0] == '[':
		g.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		return false
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		g.reject(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return false
	}
	return true
}

// reject writes a JSON-RPC error response.
func (g *lineGuard) reject(id any, code int64, msg string) {
	resp, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	g.out.Write(append(resp, '\n'))
}

// idOf is the id of a message that failed to decode, when it has a usable one
// (a string or a number), so the client can match the error to its request.
func idOf(line []byte) any {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	var s string
	if json.Unmarshal(m.ID, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(m.ID, &n) == nil {
		return n
	}
	return nil
}

func errText(err error) string {
	if err == nil {
		return "not JSON"
	}
	return err.Error()
}
