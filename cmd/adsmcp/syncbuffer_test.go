package main

import (
	"bytes"
	"regexp"
	"sync"
	"time"
)

// syncBuffer is a bytes.Buffer the child's stderr can be written to while the
// test reads it, and waits on.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // a signal after each write (one pending at most)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.signal() <- struct{}{}:
	default: // a signal is already pending
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// signal is the write signal; s.mu must be held.
func (s *syncBuffer) signal() chan struct{} {
	if s.wrote == nil {
		s.wrote = make(chan struct{}, 1)
	}
	return s.wrote
}

// await waits until what was written matches re, woken by each write, and
// returns the submatches; nil when stop is closed or within passes first.
func (s *syncBuffer) await(re *regexp.Regexp, within time.Duration, stop <-chan struct{}) []string {
	timeout := time.After(within)
	for {
		s.mu.Lock()
		m := re.FindStringSubmatch(s.b.String())
		wrote := s.signal()
		s.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-wrote:
		case <-stop:
			return nil
		case <-timeout:
			return nil
		}
	}
}

// servingRE is the line in which `adsmcp serve --http` says where it listens
// (the real port when it was asked for :0): the server is up once it is out.
var servingRE = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)
