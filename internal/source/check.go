package source

import "context"

// Checker is a source that can say whether it is fit to answer, for readiness
// probes: more than "the accounts list" — a warehouse whose file a query found
// corrupted lists its accounts still, and answers every query over the broken
// blocks with an error. Check must be cheap (probes call it every few
// seconds) and its error must hold no secrets.
type Checker interface {
	Check(ctx context.Context) error
}

// DemoLabel is src's demo label when it holds the demo dataset, else "".
func DemoLabel(src any) string {
	d, ok := src.(DemoLabelled)
	if !ok {
		return ""
	}
	demo, label := d.DemoData()
	if !demo {
		return ""
	}
	if label == "" {
		label = "demo data (synthetic)"
	}
	return label
}

// ReadDemoLabel is the label of the demo dataset a warehouse holds, read
// from its dataset table (kind "demo"), or "" when it holds other data or the
// table cannot be read.
func ReadDemoLabel(ctx context.Context, dataset func(context.Context) (map[string]string, error)) string {
	d, err := dataset(ctx)
	if err != nil || d["kind"] != "demo" {
		return ""
	}
	if d["label"] == "" {
		return "demo data (synthetic)"
	}
	return d["label"]
}

// DemoLabelled is a source that knows whether it holds the synthetic demo
// dataset, so every answer from it can say so (the demo data's spend is
// fabricated and must never pass for a tenant's real figures).
type DemoLabelled interface {
	// DemoData reports whether the data is the demo dataset; Label is
	// its label (demo.Label).
	DemoData() (demo bool, label string)
}

// WindowRecounter is a source that counts conversions under the attribution
// window a query asks for (a live connector asks the platform for it), not
// only under the one each account holds. A wrapping source passes it on.
type WindowRecounter interface {
	RecountsWindows() bool
}

// StoresOneWindow says whether src holds each account's conversions under
// one window (a warehouse, whatever loaded it), so that a query asking
// another is refused (query.Query.StoredWindowError) — known before any
// source work, so that refusal is said with every other problem of a call.
func StoresOneWindow(src any) bool {
	r, ok := src.(WindowRecounter)
	return !ok || !r.RecountsWindows()
}
