package clickhouse

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// httpClient speaks ClickHouse's HTTP interface, for writes: clickhouse-go's
// native INSERT does not work against older servers (18.x), while a POST of
// CSV to /?query=INSERT … FORMAT CSV works on every version.
type httpClient struct {
	e      *endpoints
	client *http.Client
}

func newHTTPClient(dsn string) (*httpClient, error) {
	e, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return &httpClient{e: e, client: http.DefaultClient}, nil
}

// do runs one statement; body, when not nil, is its data (INSERT … FORMAT).
// It returns the response body, or an error with ClickHouse's message.
func (c *httpClient) do(ctx context.Context, statement string, body io.Reader) (string, error) {
	v := url.Values{"database": {c.e.database}, "query": {statement}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.e.httpURL+"?"+v.Encode(), body)
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(c.e.user, c.e.password)
	resp, err := c.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("clickhouse http %s: %w", c.e.httpURL, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("clickhouse http: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 600 {
			msg = msg[:600] + "…"
		}
		return "", fmt.Errorf("clickhouse http: %s: %s", resp.Status, msg)
	}
	return string(out), nil
}

// server is c addressing the server rather than the DSN's database, which
// may not exist yet (CREATE DATABASE, system tables).
func (c *httpClient) server() *httpClient {
	e := *c.e
	e.database = "default"
	return &httpClient{e: &e, client: c.client}
}

// insertCSV writes rows into table with one INSERT … FORMAT CSV; no rows,
// no request.
func insertCSV(ctx context.Context, c *httpClient, table string, rows [][]string) error {
	if len(rows) == 0 {
		return nil
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		return fmt.Errorf("clickhouse: write %s: %w", table, err)
	}
	if _, err := c.do(ctx, "INSERT INTO "+table+" FORMAT CSV", &b); err != nil {
		return fmt.Errorf("clickhouse: write %s: %w", table, err)
	}
	return nil
}

// statements splits DDL at lines holding only ";".
func statements(ddl string) []string {
	var out []string
	for part := range strings.SplitSeq(ddl, "\n;\n") {
		lines := strings.Split(part, "\n")
		var keep []string
		for _, l := range lines {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
				keep = append(keep, l)
			}
		}
		if len(keep) > 0 {
			out = append(out, strings.Join(keep, "\n"))
		}
	}
	return out
}
