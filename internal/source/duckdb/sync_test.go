package duckdb_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/duckdb"
	"github.com/adsmcp/adsmcp/internal/source/duckdb/duckdbtest"
	"github.com/adsmcp/adsmcp/internal/source/sourcetest"
)

// The sync conformance suite on DuckDB.
func TestSyncConformance(t *testing.T) {
	sourcetest.RunSync(t, duckdbtest.SyncWarehouse())
}

// A sync from another process than the one reading the file (a server)
// cannot take DuckDB's write lock: the error says which process holds it and
// the two fixes. The holder is this test binary run again, which opens the
// file read-only, says so, and keeps it open until its stdin closes.
func TestOpenSyncNamesTheServerHoldingTheFile(t *testing.T) {
	if path := os.Getenv("ADSMCP_TEST_HOLD_DUCKDB"); path != "" {
		db, err := sql.Open("duckdb", path+"?access_mode=read_only")
		if err == nil {
			err = db.Ping()
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("holding")
		bufio.NewReader(os.Stdin).ReadString('\n') //nolint:errcheck // EOF ends the wait
		os.Exit(0)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "held.duckdb")
	src, err := duckdb.OpenWritable(ctx, path, duckdb.Options{NoDemoFill: true})
	if err != nil {
		t.Fatal(err)
	}
	src.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenSyncNamesTheServerHoldingTheFile$")
	cmd.Env = append(os.Environ(), "ADSMCP_TEST_HOLD_DUCKDB="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }() //nolint:errcheck // the holder's exit is not under test
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "holding\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	_, err = duckdb.OpenSync(ctx, path, importer.SyncOptions{})
	want := fmt.Sprintf("is open in another process (PID %d; an adsmcp serve?)", cmd.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "add `sync: {every: 1h}` to its config") ||
		!strings.Contains(err.Error(), "or stop it, sync, then start it again") {
		t.Errorf("open a held file for a sync: %v", err)
	}
}

// A server syncing its own warehouse (OpenWritable) over the demo data with
// ReplaceDemo stops saying its answers are demo data once the chunk is in.
func TestSyncReplacingTheDemoDataIsNoLongerDemo(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "demo.duckdb")
	src, err := duckdb.OpenWritable(ctx, path, duckdb.Options{Demo: duckdbtest.Config})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if demo, _ := src.DemoData(); !demo {
		t.Fatal("the demo warehouse is not demo data")
	}
	target, err := src.SyncTarget(importer.SyncOptions{ReplaceDemo: true})
	if err != nil {
		t.Fatal(err)
	}
	day := duckdbtest.Anchor.AddDate(0, 0, -1)
	c := &importer.Chunk{Account: ads.Account{AccountID: "act_1", Platform: importer.Meta, AccountName: "A", Currency: "USD", Timezone: "UTC", Status: "ACTIVE"},
		First: day, Last: day, Sets: []string{"delivery"}}
	if _, err := target.Write(ctx, c); err != nil {
		t.Fatal(err)
	}
	if demo, label := src.DemoData(); demo {
		t.Errorf("after replacing the demo data: demo %v, %q", demo, label)
	}
}
