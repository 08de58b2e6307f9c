package answer

import (
	"context"
	"reflect"

	"github.com/adsmcp/adsmcp/internal/source"
)

// provenanceOf is what the call's source queries said of where their rows
// came from (source.NoteProvenance), for _meta.data_source: nil when the
// source says nothing (a warehouse filled otherwise than by a sync, the
// demo), the one note when every query said the same, else each distinct
// note (a comparison whose windows came from different places).
func provenanceOf(ctx context.Context) any {
	n := source.ProvenanceNotesFrom(ctx)
	if n == nil {
		return nil
	}
	var distinct []source.Provenance
	for _, p := range n.Notes() {
		seen := false
		for _, d := range distinct {
			if reflect.DeepEqual(d, p) {
				seen = true
				break
			}
		}
		if !seen {
			distinct = append(distinct, p)
		}
	}
	switch len(distinct) {
	case 0:
		return nil
	case 1:
		return distinct[0]
	}
	return distinct
}
