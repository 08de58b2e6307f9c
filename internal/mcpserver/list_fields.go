package mcpserver

import (
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adsmcp/adsmcp/internal/catalog"
	"github.com/adsmcp/adsmcp/internal/outcome"
	"github.com/adsmcp/adsmcp/internal/query"
)

// ListFieldsInput are the arguments of list_fields.
type ListFieldsInput struct {
	Platform string `json:"platform,omitempty" jsonschema:"Only fields this platform reports. Omit for every field."`
}

func listFieldsTool(s *server) tool {
	return tool{
		def: &mcp.Tool{
			Name: "list_fields",
			Description: "List the dimensions and metrics the query tool accepts (CSV): kind, type, aggregation " +
				"(sums add up; ratios are recomputed from their parts; non_additive such as reach are never summed), " +
				"unit, platforms, description, synonyms; and the filter operators per type. Time is not a field: use time_granularity.",
			Annotations: readOnly("List dimensions and metrics"),
			Meta:        toolMeta(),
			InputSchema: schemaFor[ListFieldsInput](func(sc *jsonschema.Schema) {
				sc.Properties["platform"].Enum = enum(catalog.AllPlatforms...)
			}),
		},
		handler: s.guard("list_fields", s.listFields, s.listTimeout("Listing the fields")),
	}
}

func (s *server) listFields(_ context.Context, req *mcp.CallToolRequest, started time.Time) (*reply, error) {
	platforms, problems := platformArgs(req.Params.Arguments)
	if len(problems) > 0 {
		return errorBlock(outcome.InvalidQuery, "The arguments have problems; fix them and call list_fields again.",
			[]kv{{"problems", problems}}, baseMeta(started)), nil
	}
	var fields []catalog.Field
	for _, f := range catalog.Fields() {
		if len(platforms) == 0 || anyPlatform(f, platforms) {
			fields = append(fields, f)
		}
	}
	meta := baseMeta(started)
	meta.Count = ptr(len(fields))
	meta.Platform = strings.Join(platforms, ",")
	head := orderedJSON(
		kv{"_meta", meta},
		kv{"filter_operators", map[string][]query.Operator{
			string(catalog.String): query.TextOperators,
			string(catalog.Number): query.NumberOperators,
		}},
		kv{"time_granularity", query.GrainNames},
	)
	return dataReply(meta.SourceCalls, head, fieldsCSV(fields)), nil
}

func anyPlatform(f catalog.Field, platforms []string) bool {
	for _, p := range platforms {
		if f.HasPlatform(p) {
			return true
		}
	}
	return false
}

// fieldsHeader are list_fields' CSV columns.
var fieldsHeader = []string{"name", "kind", "type", "aggregation", "unit", "platforms", "description", "synonyms"}

// fieldsCSV is the catalog as CSV: the cheaper encoding in tokens (see
// TestListFieldsCSVIsCheaper).
func fieldsCSV(fields []catalog.Field) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(fieldsHeader)
	for _, f := range fields {
		w.Write(fieldRecord(f))
	}
	w.Flush()
	return b.String()
}

func fieldRecord(f catalog.Field) []string {
	return []string{f.Name, string(f.Kind), string(f.Type), aggregationOf(f), string(f.Unit),
		strings.Join(f.Platforms, " "), f.Description, strings.Join(f.Synonyms, " ")}
}

// aggregationOf states how a metric combines, with the formula of ratios:
// "ratio(clicks/impressions*100)", "non_additive(impressions/reach)".
func aggregationOf(f catalog.Field) string {
	agg := string(f.Aggregation)
	if f.Numerator == "" {
		return agg
	}
	formula := f.Numerator + "/" + f.Denominator
	if f.Scale != 0 && f.Scale != 1 {
		formula += "*" + strconv.FormatFloat(f.Scale, 'f', -1, 64)
	}
	return agg + "(" + formula + ")"
}
