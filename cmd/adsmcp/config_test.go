package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/config"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "adsmcp.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeFlagsOverrideTheFile: the file sets everything, flags given on the
// command line win, --budget-for adds to (and replaces lines of) budgets:.
func TestServeFlagsOverrideTheFile(t *testing.T) {
	file, err := config.Parse([]byte(`
deadline: 40s
max_accounts: 20
budgets: {claude-code: 80000, "*": 35000}
http: {listen: "127.0.0.1:9999"}
`), os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	settings := func(args ...string) (serveFlags, []int) {
		t.Helper()
		f := &serveFlags{}
		cmd := &cobra.Command{}
		f.register(cmd)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		cfg, err := f.serverConfig(cmd, &globals{cfg: file})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Deadline != f.deadline || cfg.MaxAccounts != f.maxAccounts {
			t.Fatalf("config %+v does not carry the flags %+v", cfg, f)
		}
		return *f, []int{cfg.BudgetOverrides.Tokens["claude-code"], cfg.BudgetOverrides.Tokens["*"], cfg.BudgetOverrides.Tokens["ChatGPT"]}
	}
	f, b := settings()
	if f.deadline != 40*time.Second || f.maxAccounts != 20 || f.listen != "127.0.0.1:9999" || b[0] != 80000 || b[1] != 35000 || b[2] != 0 {
		t.Errorf("from the file: %+v %v", f, b)
	}
	f, b = settings("--deadline", "30s", "--max-accounts", "5", "--http", "127.0.0.1:7000", "--budget-for", "ChatGPT=90000", "--budget-for", "*=40000")
	if f.deadline != 30*time.Second || f.maxAccounts != 5 || f.listen != "127.0.0.1:7000" || b[0] != 80000 || b[1] != 40000 || b[2] != 90000 {
		t.Errorf("flags over the file: %+v %v", f, b)
	}
	if file.Budgets["*"] != 35000 {
		t.Error("merging flags changed the loaded file")
	}
}

// TestQueryUsesTheConfigFile: budgets and the database come from --config (or
// ADSMCP_CONFIG); --db and --budget still win; a bad file stops every command
// with its problem.
func TestQueryUsesTheConfigFile(t *testing.T) {
	db := testDB(t)
	path := writeConfig(t, "database: "+db+"\nbudgets:\n  claude-code: 7000\n")
	args := []string{"query", "--today", "2026-03-15", "-m", "spend", "-p", "meta_ads", "--client", "claude-code"}
	out, stderr, err := runCLI(append(args, "--config", path)...)
	if err != nil || !strings.Contains(out, `"token_budget":7000`) || !strings.Contains(out, `"budget_source":"config:claude-code"`) {
		t.Errorf("--config: %v\n%s\n%s", err, out, stderr)
	}
	t.Setenv("ADSMCP_CONFIG", path)
	if out, _, err = runCLI(args...); err != nil || !strings.Contains(out, `"token_budget":7000`) {
		t.Errorf("ADSMCP_CONFIG: %v\n%s", err, out)
	}
	if out, _, err = runCLI(append(args, "--budget", "9000")...); err != nil || !strings.Contains(out, `"token_budget":9000`) {
		t.Errorf("--budget over the file: %v\n%s", err, out)
	}
	bad := writeConfig(t, "database: "+db+"\ndeadline: soon\n")
	if _, _, err := runCLI(append(args, "--config", bad)...); err == nil || !strings.Contains(err.Error(), "not a duration") || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad file: %v", err)
	}
}
