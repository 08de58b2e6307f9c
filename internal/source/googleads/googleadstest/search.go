package googleadstest

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adsmcp/adsmcp/internal/ads"
	"github.com/adsmcp/adsmcp/internal/catalog"
)

// searchStream answers googleAds:searchStream for customer cid.
func (s *Server) searchStream(w http.ResponseWriter, r *http.Request, cid, text string, sc Scenario, fail bool) {
	q, err := ParseQuery(text)
	if err != nil {
		var qe *queryError
		code, msg := "QUERY_ERROR", err.Error()
		if errors.As(err, &qe) {
			code, msg = qe.code, qe.msg
		}
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Request contains an invalid argument.",
			adsFailure("queryError", code, msg))
		return
	}
	rows, ok := s.execute(w, r, cid, q)
	if !ok {
		return
	}
	size := sc.BatchSize
	if size <= 0 {
		size = 10000
	}
	mask := make([]string, len(q.Fields))
	for i, f := range q.Fields {
		mask[i] = camelPath(f)
	}
	var batches [][]map[string]any
	for len(rows) > size {
		batches = append(batches, rows[:size])
		rows = rows[size:]
	}
	batches = append(batches, rows)

	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	w.Write([]byte("["))
	for i, b := range batches {
		if i > 0 {
			if sc.BatchDelay > 0 {
				select {
				case <-time.After(sc.BatchDelay):
				case <-r.Context().Done():
					return
				}
			}
			w.Write([]byte(","))
		}
		batch := map[string]any{"fieldMask": strings.Join(mask, ","), "requestId": "fake-" + cid + "-" + strconv.Itoa(i)}
		if len(b) > 0 {
			batch["results"] = b
		}
		if i == len(batches)-1 {
			batch["queryResourceConsumption"] = "1"
		}
		out, _ := json.Marshal(batch)
		w.Write(out)
		flush()
		if fail && sc.Failure == MidStream {
			e, _ := json.Marshal(errorBody(http.StatusInternalServerError, "INTERNAL", "Internal error encountered.",
				adsFailure("internalError", "INTERNAL_ERROR", "An internal error has occurred.")))
			w.Write([]byte(","))
			w.Write(e)
			w.Write([]byte("]"))
			return
		}
		if fail && sc.Failure == Truncated {
			return // the array is never closed
		}
	}
	w.Write([]byte("]"))
}

// group is one result row being aggregated.
type group struct {
	attrs []string
	sums  [catalog.NumMeasures]float64 // by catalog.Measure, what Google reports
}

// execute runs q for customer cid and returns its rows, or writes an error.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, cid string, q *Query) ([]map[string]any, bool) {
	denied := func() ([]map[string]any, bool) {
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "The caller does not have permission",
			adsFailure("authorizationError", "USER_PERMISSION_DENIED",
				"User doesn't have permission to access customer. Note: If you're accessing a client customer, the manager's customer ID must be set in the 'login-customer-id' header."))
		return nil, false
	}
	if q.Resource == "geo_target_constant" {
		return s.geoTargets(q), true
	}
	manager := s.cfg.ManagerID != "" && cid == digits(s.cfg.ManagerID)
	// The resources listing a customer's settings read no facts.
	settings := q.Resource == "conversion_action" || q.Resource == "customer_client" ||
		q.Resource == "customer" && !slices.ContainsFunc(q.Fields, func(f string) bool { return strings.HasPrefix(f, "metrics.") })
	c, err := s.customer(cid, settings)
	switch {
	case err != nil:
		writeError(w, http.StatusInternalServerError, "INTERNAL", err.Error(), adsFailure("internalError", "INTERNAL_ERROR", err.Error()))
		return nil, false
	case manager:
		return s.managerRows(w, cid, q)
	case c == nil:
		return denied()
	case s.cfg.ManagerID != "" && r.Header.Get("login-customer-id") == "":
		return denied() // clients are only reachable through the manager
	case q.Resource == "customer_client":
		return nil, true // not a manager: no clients
	case q.Resource == "conversion_action":
		return c.conversionActionRows(s, q), true
	}

	var attrs []string
	metrics := false
	for _, f := range q.Fields {
		if strings.HasPrefix(f, "metrics.") {
			metrics = true
		} else {
			attrs = append(attrs, f)
		}
	}
	if q.Resource == "customer" && !metrics {
		vals := make([]string, len(attrs))
		for i, f := range attrs {
			vals[i] = c.customerAttribute(f)
		}
		return []map[string]any{s.row(cid, q.Fields, attrs, &group{attrs: vals})}, true
	}
	// Each resource reads its breakdown set's rows; a view's rows are per ad
	// group and criterion whether or not they are selected, as in the API.
	set := catalog.Delivery
	switch {
	case q.Resource == "user_location_view":
		// Countries are the location set's rows, per ad group: Google's
		// delivery rows carry none (catalog.PlatformSets).
		set = "location"
	case q.Resource == "age_range_view":
		set = "age"
	case q.Resource == "gender_view":
		set = "gender"
	case slices.Contains(q.Fields, "segments.conversion_action_name") ||
		slices.ContainsFunc(q.Where, func(c Condition) bool { return c.Field == "segments.conversion_action_name" }):
		set = "conversion_action"
	}
	view := set == "age" || set == "gender"
	groups := map[string]*group{}
	var order []*group
	vals := make([]string, len(attrs))
facts:
	for i := range c.facts {
		f := &c.facts[i]
		if f.BreakdownKey() != set {
			continue
		}
		for k := range q.Where {
			if !q.Where[k].match(c.attribute(f, q.Where[k].Field)) {
				continue facts
			}
		}
		for k, a := range attrs {
			vals[k] = c.attribute(f, a)
		}
		key := strings.Join(vals, "\x00")
		if view {
			key += "\x00" + f.AdSetID + "\x00" + f.Age + "\x00" + f.Gender
		}
		g := groups[key]
		if g == nil {
			g = &group{attrs: slices.Clone(vals)}
			groups[key] = g
			order = append(order, g)
		}
		for m, v := range f.Measures {
			if v != ads.NotReported {
				g.sums[m] += v
			}
		}
	}
	rows := make([]map[string]any, len(order))
	for i, g := range order {
		rows[i] = s.row(cid, q.Fields, attrs, g)
	}
	return rows, true
}

// conversionActionRows answers conversion_action queries.
func (c *customer) conversionActionRows(s *Server, q *Query) []map[string]any {
	var rows []map[string]any
next:
	for _, a := range c.actions {
		v := map[string]string{"conversion_action.id": a.id, "conversion_action.name": a.name,
			"conversion_action.status": a.status, "conversion_action.include_in_conversions_metric": strconv.FormatBool(a.primary)}
		for f := range q.Fields {
			if strings.HasPrefix(q.Fields[f], "customer.") {
				v[q.Fields[f]] = c.customerAttribute(q.Fields[f])
			}
		}
		for _, cond := range q.Where {
			if !cond.match(v[cond.Field]) {
				continue next
			}
		}
		vals := make([]string, len(q.Fields))
		for i, f := range q.Fields {
			vals[i] = v[f]
		}
		rows = append(rows, s.row(c.cid, q.Fields, q.Fields, &group{attrs: vals}))
	}
	return rows
}

// managerRows answers queries on the manager account.
func (s *Server) managerRows(w http.ResponseWriter, cid string, q *Query) ([]map[string]any, bool) {
	var clients []map[string]string
	clients = append(clients, map[string]string{"customer_client.id": cid, "customer_client.descriptive_name": "Fake Agency (manager)",
		"customer_client.currency_code": "USD", "customer_client.time_zone": "America/New_York",
		"customer_client.status": "ENABLED", "customer_client.manager": "true", "customer_client.level": "0"})
	for _, a := range s.data.List() {
		clients = append(clients, map[string]string{"customer_client.id": digits(a.AccountID),
			"customer_client.descriptive_name": a.AccountName, "customer_client.currency_code": a.Currency,
			"customer_client.time_zone": a.Timezone, "customer_client.status": customerStatusEnum[a.Status],
			"customer_client.manager": "false", "customer_client.level": "1"})
	}
	switch q.Resource {
	case "customer_client":
		var rows []map[string]any
	next:
		for _, c := range clients {
			for _, cond := range q.Where {
				if !cond.match(c[cond.Field]) {
					continue next
				}
			}
			vals := make([]string, len(q.Fields))
			for i, f := range q.Fields {
				vals[i] = c[f]
			}
			rows = append(rows, s.row(cid, q.Fields, q.Fields, &group{attrs: vals}))
		}
		return rows, true
	case "customer":
		vals := make([]string, len(q.Fields))
		for i, f := range q.Fields {
			if strings.HasPrefix(f, "customer.") {
				vals[i] = clients[0][strings.Replace(f, "customer.", "customer_client.", 1)]
			}
		}
		return []map[string]any{s.row(cid, q.Fields, q.Fields, &group{attrs: vals})}, true
	}
	writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Request contains an invalid argument.",
		adsFailure("queryError", "REQUESTED_METRICS_FOR_MANAGER", "Metrics cannot be requested for a manager account. To retrieve metrics, issue separate requests against each client account under the manager account."))
	return nil, false
}

// geoTargets answers geo_target_constant queries.
func (s *Server) geoTargets(q *Query) []map[string]any {
	var rows []map[string]any
	codes := make([]string, 0, len(geoTargets))
	for code := range geoTargets {
		codes = append(codes, code)
	}
	slices.Sort(codes)
next:
	for _, code := range codes {
		id := s.geoID(code)
		c := map[string]string{"geo_target_constant.id": id, "geo_target_constant.country_code": code}
		for _, cond := range q.Where {
			if !cond.match(c[cond.Field]) {
				continue next
			}
		}
		vals := make([]string, len(q.Fields))
		for i, f := range q.Fields {
			vals[i] = c[f]
		}
		rows = append(rows, s.row("", q.Fields, q.Fields, &group{attrs: vals}))
	}
	return rows
}

func (s *Server) geoID(code string) string {
	if id, ok := s.cfg.GeoTargets[code]; ok {
		return id
	}
	return geoTargets[code]
}

var boolFields = map[string]bool{"customer.manager": true, "customer_client.manager": true,
	"user_location_view.targeting_location": true, "conversion_action.include_in_conversions_metric": true}

// row builds one GoogleAdsRow in the API's JSON form. Objects whose ID is
// missing (dimension artifacts) are left out, like empty values and zero
// metrics.
func (s *Server) row(cid string, fields, attrs []string, g *group) map[string]any {
	val := map[string]string{}
	for i, a := range attrs {
		val[a] = g.attrs[i]
	}
	// A resource whose ID is absent is not in the row at all.
	absent := func(f string) bool {
		for _, p := range []string{"campaign", "ad_group", "ad_group_ad.ad", "user_location_view"} {
			id := p + ".id"
			if p == "user_location_view" {
				id = p + ".country_criterion_id"
			}
			if strings.HasPrefix(f, p+".") {
				if v, ok := val[id]; ok && v == "" {
					return true
				}
			}
		}
		return false
	}
	out := map[string]any{}
	for _, f := range fields {
		if absent(f) {
			continue
		}
		var v any
		if m, ok := gaqlMeasures[f]; ok {
			v = metricValue(m, g.sums[m.Storage.Measure])
		} else {
			x := val[f]
			switch {
			case x == "":
			case boolFields[f]:
				if x == "true" {
					v = true
				}
			default:
				v = x
			}
		}
		if v != nil {
			set(out, strings.Split(camelPath(f), "."), v)
		}
	}
	// Resource names, as the API always adds them.
	add := func(obj, name string) {
		if m, ok := out[obj].(map[string]any); ok {
			m["resourceName"] = name
		}
	}
	add("customer", "customers/"+cid)
	add("campaign", "customers/"+cid+"/campaigns/"+val["campaign.id"])
	add("adGroup", "customers/"+cid+"/adGroups/"+val["ad_group.id"])
	if m, ok := out["adGroupAd"].(map[string]any); ok {
		m["resourceName"] = "customers/" + cid + "/adGroupAds/" + val["ad_group.id"] + "~" + val["ad_group_ad.ad.id"]
		if ad, ok := m["ad"].(map[string]any); ok {
			ad["resourceName"] = "customers/" + cid + "/ads/" + val["ad_group_ad.ad.id"]
		}
	}
	add("userLocationView", "customers/"+cid+"/userLocationViews/"+val["user_location_view.country_criterion_id"]+"~true")
	add("customerClient", "customers/"+cid+"/customerClients/"+val["customer_client.id"])
	add("geoTargetConstant", "geoTargetConstants/"+val["geo_target_constant.id"])
	add("conversionAction", "customers/"+cid+"/conversionActions/"+val["conversion_action.id"])
	return out
}

// gaqlMetric is a documented GAQL metric the fake serves: the catalog
// metric whose data it holds and whether the API writes it as an int64 (a
// JSON string) rather than a double. The fake keeps its own list, apart from
// the connector's, so that a field the connector misspells fails the tests
// (fields reference: https://developers.google.com/google-ads/api/fields/v25/metrics).
type gaqlMetric struct {
	name  string
	int64 bool
}

var gaqlMetrics = map[string]gaqlMetric{
	"metrics.cost_micros":          {"spend", true},
	"metrics.impressions":          {"impressions", true},
	"metrics.clicks":               {"clicks", true},
	"metrics.conversions":          {"conversions", false},
	"metrics.conversions_value":    {"conversion_value", false},
	"metrics.video_trueview_views": {"video_views", true},
}

// gaqlMeasures are the catalog's stored metrics by their GAQL field.
var gaqlMeasures = func() map[string]catalog.Field {
	out := map[string]catalog.Field{}
	for field, m := range gaqlMetrics {
		out[field] = catalog.MustLookup(m.name)
	}
	return out
}()

// metricValue writes a metric's sum as the API does: int64s as strings, doubles
// as numbers (money in currency units), zero left out.
func metricValue(f catalog.Field, v float64) any {
	int64s := false
	for _, m := range gaqlMetrics {
		int64s = int64s || m.name == f.Name && m.int64
	}
	switch {
	case v == 0:
		return nil
	case int64s:
		return strconv.FormatInt(int64(v), 10)
	case f.Storage.Kind == catalog.Micros:
		return json.Number(strconv.FormatFloat(v/1e6, 'f', -1, 64))
	}
	return v
}

func set(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// camelPath turns a GAQL field into its JSON path: ad_group_ad.ad.id →
// adGroupAd.ad.id, metrics.cost_micros → metrics.costMicros.
func camelPath(f string) string {
	parts := strings.Split(f, ".")
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j := 1; j < len(words); j++ {
			if words[j] != "" {
				words[j] = strings.ToUpper(words[j][:1]) + words[j][1:]
			}
		}
		parts[i] = strings.Join(words, "")
	}
	return strings.Join(parts, ".")
}
