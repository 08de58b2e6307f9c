package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/answer"
	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/config"
	"github.com/adsmcp/adsmcp/internal/source/live"
	"github.com/adsmcp/adsmcp/internal/source/registry"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// output is run's stdout: it closes ready when run prints the Ready line.
type output struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	had := strings.Contains(o.buf.String(), Ready)
	o.buf.Write(p)
	if !had && strings.Contains(o.buf.String(), Ready) {
		close(o.ready)
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// program is run in the background.
type program struct {
	out    *output
	stop   context.CancelFunc
	done   chan struct{} // closed when run returns, with err
	err    error
	config string
}

// startProgram runs the program with args (and -config in a temporary directory)
// and waits for its Ready line.
func startProgram(t *testing.T, args ...string) *program {
	t.Helper()
	p := &program{out: &output{ready: make(chan struct{})}, done: make(chan struct{}),
		config: filepath.Join(t.TempDir(), "fakes.yaml")}
	ctx, stop := context.WithCancel(context.Background())
	p.stop = stop
	go func() {
		defer close(p.done)
		p.err = run(ctx, append([]string{"-config", p.config}, args...), p.out, &bytes.Buffer{})
	}()
	select {
	case <-p.out.ready:
	case <-p.done:
		t.Fatalf("run %v ended before it was ready: %v\n%s", args, p.err, p.out)
	}
	t.Cleanup(func() { _ = p.shutdown() })
	return p
}

// shutdown stops the program and returns run's error.
func (p *program) shutdown() error {
	p.stop()
	<-p.done
	return p.err
}

// engine answers queries, as the CLI and the server do, from the live
// sources the written config file names.
func (p *program) engine(t *testing.T, today time.Time) *answer.Engine {
	t.Helper()
	f, err := config.Load(p.config)
	if err != nil {
		t.Fatalf("the written config: %v", err)
	}
	var conns []live.Connector
	for _, c := range f.Sources.All() {
		l, ok := c.Section.(registry.Live)
		if !ok {
			t.Fatalf("sources.%s is not a live source", c.Name)
		}
		conn, err := l.Connector(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	if len(conns) != 3 {
		t.Fatalf("want the three platforms' sources, got %d", len(conns))
	}
	return &answer.Engine{Source: live.New(nil, conns...), Now: func() time.Time { return today.Add(9 * time.Hour) }, MaxAccounts: 1000}
}

// spendByAccount asks for spend and clicks by account over the platform's
// accounts and returns the answer's spend by account_id.
func spendByAccount(t *testing.T, e *answer.Engine, platform, preset string) map[string]string {
	t.Helper()
	res, err := e.Query(context.Background(), answer.Request{Client: "claude-code", Budget: 100000,
		Args: fmt.Appendf(nil, `{"platforms":[%q],"metrics":["spend","clicks"],"dimensions":["account_id"],"date_preset":%q}`, platform, preset)})
	if err != nil || res.IsError || len(res.Blocks) != 2 {
		t.Fatalf("%s: %v %+v", platform, err, res)
	}
	recs, err := csv.NewReader(strings.NewReader(res.Blocks[1])).ReadAll()
	if err != nil || len(recs) < 2 || recs[0][0] != "account_id" || !slices.Contains(recs[0], "spend") {
		t.Fatalf("%s: not the CSV asked for (%v):\n%s", platform, err, res.Blocks[1])
	}
	spend := slices.Index(recs[0], "spend")
	out := map[string]string{}
	for _, r := range recs[1:] {
		out[r[0]] = r[spend]
	}
	return out
}

// TestFakesAnswerLiveQueries: the written config makes adsmcp's live sources
// read the three fakes, which answer every platform's accounts with spend.
func TestFakesAnswerLiveQueries(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	p := startProgram(t, "-today", "2026-03-15")
	for _, want := range []string{"meta_ads   http://127.0.0.1:", "6 accounts", "google_ads http://127.0.0.1:", "5 accounts",
		"tiktok_ads http://127.0.0.1:", "3 accounts", "go run ./cmd/adsmcp query --config " + p.config} {
		if !strings.Contains(p.out.String(), want) {
			t.Errorf("the output has no %q:\n%s", want, p.out)
		}
	}
	e := p.engine(t, time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC))
	accounts, err := e.Source.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, a := range accounts {
		per[a.Platform]++
	}
	if per[catalog.MetaAds] != 6 || per[catalog.GoogleAds] != 5 || per[catalog.TikTokAds] != 3 {
		t.Errorf("accounts per platform: %v", per)
	}
	for _, platform := range []string{catalog.MetaAds, catalog.GoogleAds, catalog.TikTokAds} {
		rows := spendByAccount(t, e, platform, "last_90d")
		var spend float64
		for _, r := range rows {
			v, err := strconv.ParseFloat(r, 64)
			if err != nil || v < 0 {
				t.Errorf("%s: spend %q", platform, r)
			}
			spend += v
		}
		if spend <= 0 || len(rows) == 0 {
			t.Errorf("%s: no spend over the last 90 days: %v", platform, rows)
		}
	}
	start := time.Now()
	if err := p.shutdown(); err != nil {
		t.Errorf("run after cancel: %v", err)
	}
	t.Logf("stopped in %s", time.Since(start))
	if _, err := http.Get(strings.Fields(p.out.String()[strings.Index(p.out.String(), "meta_ads"):])[1]); err == nil {
		t.Error("the Meta fake still answers after shutdown")
	}
	if _, err := os.Stat(p.config); err != nil {
		t.Errorf("the config file should stay: %v", err)
	}
}

// TestScale: -scale accounts=N gives every platform N accounts with their
// own IDs and names, each answering with spend.
func TestScale(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	const n = 13 // more than two copies of every platform's demo accounts
	p := startProgram(t, "-today", "2026-03-15", "-scale", fmt.Sprintf("accounts=%d,days=120,campaigns=0.02", n), "-seed", "7")
	e := p.engine(t, time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC))
	accounts, err := e.Source.Accounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids, names := map[string]bool{}, map[string]bool{}
	per := map[string]int{}
	for _, a := range accounts {
		per[a.Platform]++
		ids[a.AccountID], names[a.AccountName] = true, true
	}
	if len(ids) != 3*n || len(names) != 3*n || per[catalog.MetaAds] != n || per[catalog.GoogleAds] != n || per[catalog.TikTokAds] != n {
		t.Fatalf("want %d accounts per platform, each its own ID and name: %v, %d IDs, %d names", n, per, len(ids), len(names))
	}
	for _, platform := range []string{catalog.MetaAds, catalog.GoogleAds, catalog.TikTokAds} {
		rows := spendByAccount(t, e, platform, "last_30d")
		for _, a := range accounts {
			if _, ok := rows[a.AccountID]; a.Platform == platform && a.Status == "ACTIVE" && !ok {
				t.Errorf("%s: no row for active account %s (%s)", platform, a.AccountID, a.AccountName)
			}
		}
	}
}

// TestLatency: -latency delays every request by at least that much.
func TestLatency(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "starts the API fakes")
	}
	const latency = 150 * time.Millisecond
	p := startProgram(t, "-latency", latency.String())
	line := p.out.String()[strings.Index(p.out.String(), "tiktok_ads"):]
	url := strings.Fields(line)[1]
	if !strings.Contains(line, "each request delayed 150ms") {
		t.Errorf("the output does not say the latency: %s", line)
	}
	for range 3 {
		began := time.Now()
		resp, err := http.Get(url + "/open_api/v1.3/oauth2/advertiser/get/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if took := time.Since(began); took < latency {
			t.Errorf("a request took %s, less than -latency %s", took, latency)
		}
	}
}

// TestRefusals: what run refuses, before starting anything.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "adsmcp.yaml")
	if err := os.WriteFile(mine, []byte("sources: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "-config FILE is required"},
		{[]string{"-config", filepath.Join(dir, "x.yaml"), "-scale", "accounts=0"}, "want at least 1"},
		{[]string{"-config", filepath.Join(dir, "x.yaml"), "-scale", "years=3"}, `unknown key "years"`},
		{[]string{"-config", filepath.Join(dir, "x.yaml"), "-addr", "0.0.0.0:0"}, "serve on loopback"},
		{[]string{"-config", mine}, "was not written by this command"},
	} {
		err := run(context.Background(), c.args, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "sources: {}\n" {
		t.Errorf("the user's file changed: %q", b)
	}
	var usage bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &usage); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(usage.String(), "-scale") || !strings.Contains(usage.String(), "-latency") {
		t.Errorf("-h: %v\n%s", err, usage.String())
	}
}
