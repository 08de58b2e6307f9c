package mcpserver

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// inFlight is the calls read from stdin and not yet answered on stdout.
//
// It exists because the SDK stops a session the moment its reader reports the
// end of input: it cancels every call still running and refuses to write their
// answers. `printf '<initialize>\n…\n<tools/call>\n' | adsmcp serve` would then
// print nothing for the calls after initialize. The stdio reader instead waits
// here at the end of input until every call it handed over has been answered
// (each is bounded by the server's deadline), and only then reports it. Close
// (a signal, or the session ending) stops the wait at once.
//
// Upstream: go-sdk#1061
// (https://github.com/modelcontextprotocol/go-sdk/issues/1061), fix proposed in
// PR #1067, not merged; v1.8.0, the newest release, still drops the answers.
// inFlight may go once a release has the fix.
type inFlight struct {
	mu      sync.Mutex
	changed *sync.Cond
	calls   map[jsonrpc.ID]struct{}
	closed  bool
}

func newInFlight() *inFlight {
	f := &inFlight{calls: map[jsonrpc.ID]struct{}{}}
	f.changed = sync.NewCond(&f.mu)
	return f
}

// read notes a message handed to the SDK: a call starts, or a cancellation
// ends one (the SDK may never answer a call the client cancelled).
func (f *inFlight) read(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		f.update(func() { f.calls[req.ID] = struct{}{} })
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
		f.update(func() { delete(f.calls, id) })
	}
}

// wrote notes a line written to stdout: a response ends its call.
func (f *inFlight) wrote(line []byte) {
	if !bytes.Contains(line, []byte(`"id"`)) {
		return // a notification: nothing to decode
	}
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
	if err != nil {
		return
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		f.update(func() { delete(f.calls, resp.ID) })
	}
}

// wait returns when no call is in flight, or after close.
func (f *inFlight) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.calls) > 0 && !f.closed {
		f.changed.Wait()
	}
}

func (f *inFlight) close() { f.update(func() { f.closed = true }) }

func (f *inFlight) update(change func()) {
	f.mu.Lock()
	change()
	f.mu.Unlock()
	f.changed.Broadcast()
}
