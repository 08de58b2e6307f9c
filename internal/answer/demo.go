package answer

import (
	"fmt"

	"github.com/adsmcp/adsmcp/fit"
)

// DemoWarning is the warning every answer from the synthetic demo dataset
// carries in the _meta the model reads — data, errors that name accounts or
// suggest queries, the account list — so that no figure or account of it is
// repeated to a user as theirs (docs/contract.md §9). label is the dataset's.
func DemoWarning(label string) fit.Warning {
	return fit.Warning{Type: "demo_data", Detail: fmt.Sprintf(
		"%s: every figure here is generated, not read from real ad accounts. Tell the user; never present it as their data", label)}
}

// demoWarnings is DemoWarning as a list, empty without a label.
func demoWarnings(label string) []fit.Warning {
	if label == "" {
		return nil
	}
	return []fit.Warning{DemoWarning(label)}
}
