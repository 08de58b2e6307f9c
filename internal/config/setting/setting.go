// Package setting holds the value types of the configuration file that the
// sources' own sections use too: a Secret that never prints, and a Duration
// written as "55s". It is a leaf, so a source package can declare its section
// of the file without importing the config package that reads the whole file.
package setting

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Secret is a credential from the file. It prints, logs and marshals as
// [redacted], so it cannot leak through a log line or an error.
type Secret string

func (Secret) String() string               { return "[redacted]" }
func (Secret) GoString() string             { return "[redacted]" }
func (Secret) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// Reveal is the credential itself, for the one place that sends it.
func (s Secret) Reveal() string { return string(s) }

// Duration is a time.Duration written as "55s", "1m30s".
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, nerr := strconv.ParseFloat(strings.TrimSpace(s), 64); nerr == nil {
			return fmt.Errorf("line %d: %q is not a duration: write %ss (a duration needs its unit: 55s, 2m, 1h30m)", n.Line, s, strings.TrimSpace(s))
		}
		return fmt.Errorf("line %d: %q is not a duration: write it like 55s, 2m or 1h30m", n.Line, s)
	}
	*d = Duration(v)
	return nil
}
