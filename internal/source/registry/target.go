package registry

import (
	"context"
	"fmt"

	"github.com/adsmcp/adsmcp/internal/demo"
	"github.com/adsmcp/adsmcp/internal/importer"
	"github.com/adsmcp/adsmcp/internal/source/migration"
)

// Target is how `adsmcp import`, `adsmcp sync` and `adsmcp demo` write a warehouse server
// named by a --target URL. The URL may hold a password: the functions hand it
// to the driver only, and the command scrubs it from their messages.
type Target struct {
	// Schemes are the URL schemes that name this engine ("postgres",
	// "postgresql"), in lower case.
	Schemes []string
	// Label names the engine in messages ("PostgreSQL").
	Label string
	// Example is how to write the URL, shown when a --target is wrong
	// ("postgres://USER@HOST:PORT/DATABASE (the password in …)").
	Example string
	// CheckURL says what is wrong with a URL of one of Schemes, or nil. Its
	// message never quotes the URL.
	CheckURL func(url string) error
	// Import writes the exports into the warehouse at url. Failures are a
	// *StepError saying what failed, except importer.ErrDemoData, which the
	// command prints as it is.
	Import func(ctx context.Context, url string, exports []*importer.Export, opt importer.WriteOptions) (*importer.WriteResult, error)
	// LoadDemo loads the demo dataset into the warehouse at url: into an
	// empty one, or with force in place of the one there, telling progress
	// when it starts writing and how far it is. Failures are a *StepError, or
	// wrap ErrNotEmpty when the warehouse holds data and force is not set.
	LoadDemo func(ctx context.Context, url string, cfg demo.Config, force bool, progress Progress) error
	// Migrate brings the warehouse at url to this adsmcp's schema version
	// (`adsmcp migrate --target`). Failures are a *StepError, except
	// migration.ErrNoWarehouse, which the command prints as it is.
	Migrate func(ctx context.Context, url string) (migration.Result, error)
	// OpenSync opens the warehouse at url for `adsmcp sync --target`,
	// creating what is missing (the database, the tables). Failures are a
	// *StepError. The target's Close releases what it opened.
	OpenSync func(ctx context.Context, url string, opt importer.SyncOptions) (importer.SyncTarget, error)
	// ErrNotEmpty is the error LoadDemo wraps when the warehouse holds data.
	ErrNotEmpty error
	// NotEmptyFix is the alternative to --force when it does ("point
	// --target at another database").
	NotEmptyFix string
}

// Progress follows a demo load: Start once the warehouse is reached and
// ready, then Update as rows are written (done of total).
type Progress interface {
	Start()
	Update(done, total int64)
}

// StepError is a target's failure with the step that failed ("connect",
// "import"), so the command can say which without parsing the message.
type StepError struct {
	Step string
	Err  error
}

// Failed is err as the failure of step; nil stays nil.
func Failed(step string, err error) error {
	if err == nil {
		return nil
	}
	return &StepError{Step: step, Err: err}
}

func (e *StepError) Error() string { return fmt.Sprintf("%s: %v", e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }
