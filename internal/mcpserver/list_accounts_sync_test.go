package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/synced"
)

// TestListAccountsSaysEachAccountsFreshness: over a synced warehouse, each
// row says which days the warehouse holds, when a sync last wrote the account
// and why its last attempt failed, and _meta says where answers come from.
// The output is a golden file (testdata/list_accounts_synced.golden; -update
// rewrites it).
func TestListAccountsSaysEachAccountsFreshness(t *testing.T) {
	cfg := testConfig(t)
	wh := cfg.Source
	accts, err := wh.Accounts(context.Background())
	if err != nil || len(accts) < 3 {
		t.Fatalf("accounts: %v %v", accts, err)
	}
	at := time.Date(2026, 3, 15, 9, 30, 0, 0, time.UTC)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	states := []importer.SyncState{
		{AccountID: strings.ToUpper(accts[0].AccountID), SyncedFrom: day("2025-12-16"), SyncedThrough: day("2026-03-15"), LastAttempt: at, LastSuccess: at},
		{AccountID: accts[1].AccountID, SyncedFrom: day("2026-02-01"), SyncedThrough: day("2026-03-14"), LastAttempt: at,
			LastError: "permission_denied: the token lost access. Fix: grant ads_read again"},
	}
	cfg.Source = &synced.Source{Warehouse: wh, Live: wh, States: func(context.Context) ([]importer.SyncState, error) { return states, nil }}
	cs := connect(t, cfg, "claude-code")
	b := texts(t, call(t, cs, "list_accounts", `{}`))
	meta := metaOf(t, b[0])
	if from, _ := meta["answers_from"].(string); !strings.Contains(from, "synced warehouse") || !strings.Contains(from, "live") {
		t.Errorf("_meta.answers_from %q", from)
	}
	got := b[len(b)-1]
	path := filepath.Join("testdata", "list_accounts_synced.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("list_accounts CSV differs from %s (-update if intended):\n%s", path, got)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if !strings.HasSuffix(lines[0], ",synced_from,synced_through,synced_at,sync_error") {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasSuffix(lines[1], ",2025-12-16,2026-03-15,2026-03-15T09:30:00Z,") {
		t.Errorf("a synced account (its ID in another case in the state): %q", lines[1])
	}
	if !strings.Contains(lines[2], `,2026-02-01,2026-03-14,2026-03-15T09:30:00Z,permission_denied: the token lost access. Fix: grant ads_read again`) {
		t.Errorf("a failed account: %q", lines[2])
	}
	if !strings.HasSuffix(lines[3], ",,,,") {
		t.Errorf("an account never synced: %q", lines[3])
	}
}

// TestListAccountsOfAPlainWarehouseHasNoSyncColumns: a warehouse no sync
// wrote lists its accounts as before.
func TestListAccountsOfAPlainWarehouseHasNoSyncColumns(t *testing.T) {
	cs := connect(t, testConfig(t), "claude-code")
	b := texts(t, call(t, cs, "list_accounts", `{}`))
	if strings.Contains(b[len(b)-1], "synced_from") || strings.Contains(b[0], "answers_from") {
		t.Errorf("sync columns on a plain warehouse:\n%.300s", strings.Join(b, "\n"))
	}
}
