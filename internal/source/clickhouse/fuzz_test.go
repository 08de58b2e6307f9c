package clickhouse

import (
	"net/url"
	"strings"
	"testing"
)

// The DSN comes from the command line (--target) and the configuration file:
// whatever it is, parsing never panics, and neither its error nor Redact ever
// shows the password.
func FuzzParseDSN(f *testing.F) {
	for _, s := range []string{
		"clickhouse://default@127.0.0.1:9000/default?http_port=8123",
		"clickhouse://ads:s3cret@db:9440/w?secure=true&http_scheme=https&dial_timeout=5s",
		"clickhouse://ads:s3cret@db:notaport/w",
		"clickhouse://ads:p%40ss@[::1]:9000/x?http_port=",
		"clickhouse://:hunter22@h/d?max_execution_time=abc",
		"postgres://u:hunter22@h/d",
		"clickhouse://u:hunter22@h/d?http_scheme=gopher",
		"::",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		e, err := parseDSN(dsn)
		redacted := Redact(dsn)
		var password string
		if u, perr := url.Parse(dsn); perr == nil && u.User != nil {
			password, _ = u.User.Password()
		}
		if len(password) >= 6 && !strings.Contains("clickhouse://[redacted]xxxxx", password) {
			if err != nil && strings.Contains(err.Error(), password) {
				t.Errorf("the error shows the password %q: %v", password, err)
			}
			if strings.Contains(redacted, password) {
				t.Errorf("Redact shows the password %q: %s", password, redacted)
			}
		}
		if err == nil && (e.native == nil || e.httpURL == "" || e.database == "" || e.user == "") {
			t.Errorf("accepted %q with incomplete endpoints %+v", dsn, e)
		}
	})
}
