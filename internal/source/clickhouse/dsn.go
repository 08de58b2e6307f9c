package clickhouse

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// DefaultHTTPPort is ClickHouse's HTTP interface port, used by the loader
// when the DSN does not name one with http_port.
const DefaultHTTPPort = "8123"

// endpoints are where one ClickHouse server is reached: the native protocol
// for queries (clickhouse-go), the HTTP interface for loading.
type endpoints struct {
	native   *ch.Options
	httpURL  string // http://host:port/
	user     string
	password string
	database string
}

// parseDSN reads clickhouse://user:password@host:9000/database?http_port=8123&…:
// http_port (and http_scheme, http or https) are adsmcp's own and are taken
// out; every other parameter goes to clickhouse-go (dial_timeout, secure,
// compress, and ClickHouse settings).
func parseDSN(dsn string) (*endpoints, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "clickhouse" || u.Host == "" {
		return nil, fmt.Errorf("clickhouse: dsn %s: want clickhouse://user:password@host:9000/database", Redact(dsn))
	}
	q := u.Query()
	httpPort := q.Get("http_port")
	if httpPort == "" {
		httpPort = DefaultHTTPPort
	}
	scheme := q.Get("http_scheme")
	if scheme == "" {
		scheme = "http"
	}
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("clickhouse: dsn %s: http_scheme must be http or https", Redact(dsn))
	}
	q.Del("http_port")
	q.Del("http_scheme")
	u.RawQuery = q.Encode()
	opt, err := ch.ParseDSN(u.String())
	if err != nil {
		return nil, fmt.Errorf("clickhouse: dsn %s: %w", Redact(dsn), err)
	}
	host := u.Hostname()
	if host == "" || len(opt.Addr) == 0 {
		return nil, fmt.Errorf("clickhouse: dsn %s: no host", Redact(dsn))
	}
	e := &endpoints{
		native:   opt,
		httpURL:  scheme + "://" + net.JoinHostPort(host, httpPort) + "/",
		user:     opt.Auth.Username,
		password: opt.Auth.Password,
		database: opt.Auth.Database,
	}
	if e.user == "" {
		e.user = "default"
	}
	if e.database == "" {
		e.database = "default"
	}
	return e, nil
}

// Redact is dsn with its password replaced, for messages and logs.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		if i := strings.LastIndex(dsn, "@"); i >= 0 {
			return "[redacted]" + dsn[i:]
		}
		return dsn
	}
	return u.Redacted()
}

// CheckDSN says whether dsn is a ClickHouse URL adsmcp can use, without
// connecting; its error never holds the password.
func CheckDSN(dsn string) error {
	_, err := parseDSN(dsn)
	return err
}
