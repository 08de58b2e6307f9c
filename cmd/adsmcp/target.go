package main

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/source/plugins"
	"github.com/adsmcp/adsmcp/internal/source/registry"
)

// A target is the warehouse `adsmcp import` and `adsmcp demo` write. Without
// --target it is the embedded DuckDB file (--db, as always); a --target URL
// picks a warehouse server by its scheme, among the plug-ins' targets
// (internal/source/plugins): adding an engine adds nothing here.
type target struct {
	// engine writes the server a URL names; nil for the DuckDB file.
	engine *registry.Target
	// section is the engine's key under sources: ("postgres").
	section string
	// path is the DuckDB file.
	path string
	// url is the URL as given: it may hold a password, so it is only ever
	// handed to the driver. Print redacted.
	url      string
	redacted string
	// secrets are the URL's passwords, scrubbed from the drivers' messages.
	secrets []string
}

// targetEngine is a plug-in that --target can name.
type targetEngine struct {
	section string
	engine  *registry.Target
}

// targetSchemes maps a URL scheme to its engine, and targetFix says how to
// write each; both from plugins.All.
var targetSchemes, targetFix = func() (map[string]targetEngine, string) {
	schemes := map[string]targetEngine{}
	var examples []string
	for _, p := range plugins.All {
		if p.Target == nil {
			continue
		}
		for _, s := range p.Target.Schemes {
			schemes[s] = targetEngine{section: p.Name, engine: p.Target}
		}
		examples = append(examples, p.Target.Example)
	}
	return schemes, "fix: pass " + strings.Join(examples, ", ") + ", or leave --target out to write the DuckDB file (--db)"
}()

// String is the target as it may be printed: the file, or the URL without its password.
func (t *target) String() string {
	if t.url == "" {
		return t.path
	}
	return t.redacted
}

// targetOf is the target of a command: --target raw, else the --db file (or
// the default one). --db and --target together are an error: one of them
// would be silently ignored.
func targetOf(cmd *cobra.Command, g *globals, raw string) (*target, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		path, err := g.warehousePath(true)
		if err != nil {
			return nil, err
		}
		return &target{path: path}, nil
	}
	if cmd.Flags().Changed("db") {
		return nil, errors.New("--db and --target: pass one (--db FILE writes a DuckDB file, --target URL a database server)")
	}
	return parseTarget(raw)
}

// parseTarget reads a --target URL. Its errors never hold the password.
func parseTarget(raw string) (*target, error) {
	if !strings.Contains(raw, "://") {
		return nil, fmt.Errorf("--target %s: not a URL; %s", redactRaw(raw), targetFix)
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which holds the password
		}
		return nil, fmt.Errorf("--target %s: not a valid URL (%v); %s", redactRaw(raw), err, targetFix)
	}
	t := &target{url: raw, redacted: redactURL(u)}
	if p, ok := u.User.Password(); ok && p != "" {
		t.secrets = append(t.secrets, p)
	}
	for k, vs := range u.Query() {
		if isPasswordParam(k) {
			for _, v := range vs {
				if v != "" {
					t.secrets = append(t.secrets, v)
				}
			}
		}
	}
	e, ok := targetSchemes[strings.ToLower(u.Scheme)]
	if !ok {
		return nil, fmt.Errorf("--target %s: unknown kind of database %q; %s", t, u.Scheme, targetFix)
	}
	t.engine, t.section = e.engine, e.section
	if err := t.engine.CheckURL(raw); err != nil {
		return nil, fmt.Errorf("--target %s: not a valid %s URL: %s; %s", t, t.engine.Label, t.scrub(err.Error()), targetFix)
	}
	return t, nil
}

// queryHint tells the user how to answer from the target just written.
func (t *target) queryHint() string {
	if t.engine == nil {
		return ""
	}
	return fmt.Sprintf("to query it, set sources.%s.dsn to this URL in the configuration file (docs/configuration.md)\n", t.section)
}

// failure is a target's error as the command says it: the step that failed
// and the message without passwords; other errors as they are.
func (t *target) failure(err error) error {
	var step *registry.StepError
	if errors.As(err, &step) {
		return t.wrap(step.Step, step.Err)
	}
	return err
}

// wrap is err about this target, its message scrubbed of passwords (errors.Is
// and As still see err).
func (t *target) wrap(doing string, err error) error {
	return &messageError{msg: fmt.Sprintf("--target %s: %s: %s", t, doing, t.scrub(err.Error())), err: err}
}

// scrub replaces the target's passwords in s.
func (t *target) scrub(s string) string {
	for _, p := range t.secrets {
		s = strings.ReplaceAll(s, p, "xxxxx")
	}
	return s
}

// messageError is err with a message of its own: scrubbed of passwords, or
// rewritten for the command line; errors.Is and As still see err.
type messageError struct {
	msg string
	err error
}

func (e *messageError) Error() string { return e.msg }
func (e *messageError) Unwrap() error { return e.err }

func isPasswordParam(k string) bool {
	return strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword")
}

// redactURL is u without its passwords: the user's, and password= or
// sslpassword= parameters.
func redactURL(u *url.URL) string {
	c := *u
	q := c.Query()
	changed := false
	for k := range q {
		if isPasswordParam(k) {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.Redacted()
}

var (
	urlPassword = regexp.MustCompile(`(://[^/?#@]*?):[^/?#]*@`)
	kvPassword  = regexp.MustCompile(`(?i)\b((?:ssl)?password)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]*)`)
)

// redactRaw is a --target value that is not a parseable URL, without anything
// that looks like a password: user:password@, password=….
func redactRaw(s string) string {
	s = urlPassword.ReplaceAllString(s, "$1:xxxxx@")
	return kvPassword.ReplaceAllString(s, "$1=xxxxx")
}
