package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/adsmcp/adsmcp/internal/auth"
)

func runKeygen(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newKeygenCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// keygenSnippet is the YAML the user pastes into the configuration file.
type keygenSnippet struct {
	Auth struct {
		APIKeys []struct {
			ID     string `yaml:"id"`
			SHA256 string `yaml:"sha256"`
			Tenant string `yaml:"tenant"`
		} `yaml:"api_keys"`
	} `yaml:"auth"`
}

func parseKeygen(t *testing.T, out string) (key string, snip keygenSnippet) {
	t.Helper()
	keys := regexp.MustCompile(`adsmcp_[0-9A-Za-z]{43}`).FindAllString(out, -1)
	if len(keys) != 1 {
		t.Fatalf("want the key exactly once in the output, found %d:\n%s", len(keys), out)
	}
	start := strings.Index(out, "\nauth:\n")
	if start < 0 {
		t.Fatalf("no auth: snippet in\n%s", out)
	}
	yml, _, _ := strings.Cut(out[start+1:], "\n\n")
	if err := yaml.Unmarshal([]byte(yml), &snip); err != nil {
		t.Fatalf("snippet is not YAML: %v\n%s", err, yml)
	}
	if len(snip.Auth.APIKeys) != 1 {
		t.Fatalf("snippet has %d keys:\n%s", len(snip.Auth.APIKeys), yml)
	}
	return keys[0], snip
}

func TestKeygen(t *testing.T) {
	out, err := runKeygen(t, "--id", "claude-team", "--tenant", "acme")
	if err != nil {
		t.Fatal(err)
	}
	key, snip := parseKeygen(t, out)
	k := snip.Auth.APIKeys[0]
	if k.ID != "claude-team" || k.Tenant != "acme" || k.SHA256 != auth.HashKey(key) {
		t.Errorf("snippet %+v does not match key (hash %s)", k, auth.HashKey(key))
	}
	if !strings.Contains(out, "shown only this once") {
		t.Error("the output does not say the key is shown only once")
	}

	// The snippet configures a working key.
	a, err := auth.New(t.Context(), auth.Options{
		Tenants: map[string]auth.Tenant{"acme": {Accounts: []string{"*"}}},
		APIKeys: []auth.APIKey{{ID: k.ID, SHA256: k.SHA256, Tenant: k.Tenant}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ti, err := a.Verify(t.Context(), key, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := auth.FromTokenInfo(ti); p.ID != "key:claude-team" || !p.AllAccounts {
		t.Errorf("principal %+v", p)
	}
}

func TestKeygenDefaults(t *testing.T) {
	out1, err := runKeygen(t)
	if err != nil {
		t.Fatal(err)
	}
	key1, snip := parseKeygen(t, out1)
	k := snip.Auth.APIKeys[0]
	if k.ID != "key-"+auth.HashKey(key1)[:8] || k.Tenant != "TENANT" {
		t.Errorf("defaults: %+v", k)
	}
	out2, _ := runKeygen(t)
	if key2, _ := parseKeygen(t, out2); key2 == key1 {
		t.Error("two runs made the same key")
	}
}

func TestKeygenBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--id", "two words"}, {"--id", "a:b"}, {"--tenant", "acme\nx"}, {"extra"}} {
		if out, err := runKeygen(t, args...); err == nil {
			t.Errorf("keygen %q succeeded:\n%s", args, out)
		} else if strings.Contains(out, "adsmcp_") {
			t.Errorf("keygen %q printed a key although it failed", args)
		}
	}
}
