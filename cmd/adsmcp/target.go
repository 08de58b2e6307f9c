package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/adsmcp/adsmcp/internal/source/clickhouse"
)

// A target is the warehouse `adsmcp import` and `adsmcp demo` write. Without
// --target it is the embedded DuckDB file (--db, as always); a --target URL
// picks a server by its scheme. Adding an engine is a scheme here and a case in
// each command's switch on kind.
type target struct {
	kind string // targetDuckDB, targetPostgres or targetClickHouse
	// path is the DuckDB file.
	path string
	// url is the URL as given: it may hold a password, so it is only ever
	// handed to the driver. Print redacted.
	url      string
	redacted string
	// secrets are the URL's passwords, scrubbed from the drivers' messages.
	secrets []string
}

const (
	targetDuckDB     = "duckdb"
	targetPostgres   = "postgres"
	targetClickHouse = "clickhouse"
)

// targetSchemes maps a URL scheme to its kind.
var targetSchemes = map[string]string{
	"postgres":   targetPostgres,
	"postgresql": targetPostgres,
	"clickhouse": targetClickHouse,
}

const targetFix = "fix: pass postgres://USER@HOST:PORT/DATABASE (the password in $PGPASSWORD or ~/.pgpass, not on the command line), " +
	"clickhouse://USER:PASSWORD@HOST:9000/DATABASE?http_port=8123, or leave --target out to write the DuckDB file (--db)"

// String is the target as it may be printed: the file, or the URL without its password.
func (t *target) String() string {
	if t.kind == targetDuckDB {
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
		return &target{kind: targetDuckDB, path: path}, nil
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
	kind, ok := targetSchemes[strings.ToLower(u.Scheme)]
	if !ok {
		return nil, fmt.Errorf("--target %s: unknown kind of database %q; %s", t, u.Scheme, targetFix)
	}
	t.kind = kind
	switch kind {
	case targetPostgres:
		if _, err := pgxpool.ParseConfig(raw); err != nil {
			return nil, fmt.Errorf("--target %s: not a valid PostgreSQL URL: %s; %s", t, t.scrub(pgDetail(err)), targetFix)
		}
	case targetClickHouse:
		if err := clickhouse.CheckDSN(raw); err != nil {
			return nil, fmt.Errorf("--target %s: not a valid ClickHouse URL: %s; %s", t, t.scrub(err.Error()), targetFix)
		}
	}
	return t, nil
}

// queryHint tells the user how to answer from the target just written.
func (t *target) queryHint() string {
	switch t.kind {
	case targetPostgres:
		return "to query it, set sources.postgres.dsn to this URL in the configuration file (docs/configuration.md)\n"
	case targetClickHouse:
		return "to query it, set sources.clickhouse.dsn to this URL in the configuration file (docs/configuration.md)\n"
	}
	return ""
}

// openPostgres connects to a postgres target and checks that it answers.
func (t *target) openPostgres(ctx context.Context) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(t.url)
	if err != nil { // checked by parseTarget
		return nil, fmt.Errorf("--target %s: %s", t, t.scrub(pgDetail(err)))
	}
	cfg.MaxConns = 2 // one transaction writes; no need for a pool's worth of sessions
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err == nil {
		err = pool.Ping(ctx)
		if err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return nil, t.wrap("connect", fmt.Errorf("%w; fix: check the URL's host, port, user and database, and that the server is running", err))
	}
	return pool, nil
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

// pgDetail is a pgx connection-settings error without the connection string
// it quotes (pgx redacts it only on a best-effort basis).
func pgDetail(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "cannot parse `") {
		if _, rest, ok := strings.Cut(msg, "`: "); ok {
			return rest
		}
	}
	return msg
}

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
