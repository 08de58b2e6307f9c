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
// written to out is a whole JSON-RPC line. Upstream: go-sdk#1209
// (https://github.com/modelcontextprotocol/go-sdk/issues/1209), fix proposed in
// PR #1210, not merged; v1.8.0, the newest release, still ends the session
// (mcp/transport.go, newIOConn). That PR answers malformed JSON only: lineGuard
// can go when a release answers every kind of line above, and earlyError's
// cases (protocol.go) too.
//
// And at the end of input it answers every call already read before the
// session ends (see inFlight), so a script piped into `adsmcp serve` gets one
// response per request.
func NewStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return newStdioTransport(in, out, MaxMessageBytes)
}

func newStdioTransport(in io.Reader, out io.Writer, maxBytes int) mcp.Transport {
	calls := newInFlight()
	w := &lineWriter{w: out, calls: calls}
	return &mcp.IOTransport{
		Reader: &lineGuard{in: in, r: bufio.NewReaderSize(in, 64<<10), out: w, max: maxBytes, calls: calls},
		Writer: w,
	}
}

// lineWriter serializes whole-line writes from the SDK and from lineGuard.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inFlight
}

// Write writes one whole line; a response, once written, ends its call.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if err == nil {
		l.calls.wrote(p)
	}
	return n, err
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
	calls   *inFlight
	pending []byte
	err     error
	// initialized: an initialize with good params went to the SDK (earlyError).
	initialized bool
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			if errors.Is(g.err, io.EOF) {
				g.calls.wait() // answer what was read before ending the session
			}
			return 0, g.err
		}
		line, tooLong, err := g.readLine()
		g.err = err
		if tooLong {
			g.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes", g.max))
			continue
		}
		if msg := g.admit(line); msg != nil {
			g.calls.read(msg)
			g.pending = append(line, '\n')
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// Close ends the session: a wait for calls in flight ends too.
func (g *lineGuard) Close() error {
	g.calls.close()
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

// admit returns line's message when it is a JSON-RPC message for the SDK;
// otherwise it answers it and returns nil (blank lines are ignored).
func (g *lineGuard) admit(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		var v any
		g.reject(nil, jsonrpc.CodeParseError, "parse error: "+errText(json.Unmarshal(line, &v)))
		return nil
	case line[0] == '[':
		g.reject(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		g.reject(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if e := earlyError(req.Method, req.Params, g.initialized); e != nil {
			g.reject(idOf(line), e.Code, e.Message)
			return nil
		}
		// The SDK answers initialize before it reads the next line.
		g.initialized = g.initialized || req.Method == "initialize"
	}
	return msg
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
