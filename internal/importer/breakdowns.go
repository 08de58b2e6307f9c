package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// Breakdown sets in exports (docs/import.md, "Breakdowns"): an export with
// Age/Gender columns (Meta, TikTok; Google's age report or gender report),
// Placement (Meta, TikTok), or Meta's Impression device or Platform, holds
// the rows of a breakdown set other than delivery (catalog.BreakdownSets).
// Its lines become that set's rows, summed up to the level the set is stored
// at (campaign × day × the set's values; Meta's device_platform keeps its
// ads) — and never into delivery rows. A file whose breakdown columns no set holds
// together is refused.

// ConversionActionSet is the key of the breakdown set of conversions by
// action, which a Meta delivery export's per-action columns fill.
const ConversionActionSet = "conversion_action"

// BreakdownKey is the key of the breakdown set the export's lines belong to:
// catalog.Delivery unless the file has the columns of another set (age,
// gender, placement; Meta's device or platform). A
// delivery export may also carry conversion_action rows (Meta's per-action
// columns).
func (ex *Export) BreakdownKey() string {
	if ex.Breakdown == "" {
		return catalog.Delivery
	}
	return ex.Breakdown
}

// metaAction is one of Meta's per-action result columns and its value
// column: Ads Manager's "Adds to cart" and "Adds to cart conversion value"
// count the action type add_to_cart (omni_add_to_cart in the API's actions,
// named without prefix as the catalog's conversion_action values are).
type metaAction struct {
	action           string
	en, es           []string
	valueEN, valueES []string
}

// purchaseAction is the action Meta's "Purchases" column counts: the
// conversions measure of delivery rows, and the default action.
const purchaseAction = "purchase"

// numMetaActions is len(metaActions) (a constant for the column kinds).
const numMetaActions = 4

// metaActions are the per-action columns read besides Purchases (which is
// the conversions measure, declared in the catalog). The Spanish titles are
// Ads Manager's Spanish column names.
var metaActions = [numMetaActions]metaAction{
	{"add_to_cart", names("adds to cart", "website adds to cart"),
		names("articulos agregados al carrito", "agregados al carrito", "articulos anadidos al carrito", "anadidos al carrito"),
		names("adds to cart conversion value", "website adds to cart conversion value"),
		names("valor de conversion de articulos agregados al carrito", "valor de conversion de articulos anadidos al carrito")},
	{"initiate_checkout", names("checkouts initiated", "website checkouts initiated"), names("pagos iniciados"),
		names("checkouts initiated conversion value", "website checkouts initiated conversion value"),
		names("valor de conversion de pagos iniciados")},
	{"lead", names("leads", "website leads"), names("clientes potenciales"),
		names("leads conversion value", "website leads conversion value"),
		names("valor de conversion de clientes potenciales")},
	{"complete_registration", names("registrations completed", "website registrations completed"), names("registros completados"),
		names("registrations completed conversion value", "website registrations completed conversion value"),
		names("valor de conversion de registros completados")},
}

func names(n ...string) []string { return n }

// defineActionHeaders adds Meta's per-action columns to the dictionary.
func defineActionHeaders() {
	for i, a := range metaActions {
		def(actionKind(i, false), pMeta, "en", a.en...)
		def(actionKind(i, false), pMeta, "es", a.es...)
		def(actionKind(i, true), pMeta, "en", a.valueEN...)
		def(actionKind(i, true), pMeta, "es", a.valueES...)
	}
}

// actionKind is the column kind of action i's count (or value).
func actionKind(i int, value bool) kind {
	k := colAction + kind(2*i)
	if value {
		k++
	}
	return k
}

// breakdownDims are the breakdown columns of the sets, with the catalog
// dimension each fills.
var breakdownDims = []struct {
	k   kind
	dim string
}{
	{colCountry, "country"}, {colDevice, "device"}, {colPublisher, "publisher_platform"},
	{colAge, "age"}, {colGender, "gender"}, {colPlacement, "placement"},
}

// chooseSet decides the breakdown set of the file's lines from its breakdown
// columns: delivery without any; else the platform's set that holds them all
// (catalog.SetFor): delivery, or Meta's device_platform for its Impression
// device and Platform columns (Meta reports country alone), or a set kept
// per campaign. Breakdowns no set of the platform holds together are
// refused, naming the groups that work.
func (p *parser) chooseSet() error {
	var dims, titles []string
	var bad *column // the first column of a dimension the platform's delivery rows lack
	delivery, _ := catalog.SetFor(p.platform, nil)
	for _, b := range breakdownDims {
		if c := p.cols[b.k]; c != nil {
			dims = append(dims, b.dim)
			titles = append(titles, c.header)
			if bad == nil && !delivery.Holds([]string{b.dim}) {
				bad = c
			}
		}
	}
	if len(dims) == 0 {
		p.set = catalog.Delivery
		return nil
	}
	if s, ok := catalog.SetFor(p.platform, dims); ok && s.Key != ConversionActionSet {
		p.set = s.Key
		switch {
		case s.Key == catalog.Delivery:
		case p.perCampaign():
			p.rep.Breakdown = s.Key
			p.rep.note("breakdown set %s: the lines are stored as %s rows per campaign and day (summed up from %s where the file has them), apart from the delivery rows; reach is not imported for them",
				s.Key, s.Label, p.adSets()+" and ads")
		case s.Level == catalog.LevelAdSet:
			p.rep.Breakdown = s.Key
			p.rep.note("breakdown set %s: the lines are stored as %s rows per day (summed up from ads where the file has them), apart from the delivery rows (%s reports countries per ad group at the finest); reach is not imported for them",
				s.Key, s.Label, displayName(p.platform))
		default:
			p.rep.Breakdown = s.Key
			p.rep.note("breakdown set %s: the lines are stored as %s rows per ad and day, apart from the delivery rows (%s reports them apart from country); reach is not imported for them",
				s.Key, s.Label, displayName(p.platform))
		}
		return nil
	}
	return p.errAt(p.header.line(), bad.index+1, "",
		fmt.Sprintf("the breakdown columns %s are not reported together by %s, so their lines cannot be stored as one breakdown set",
			strings.Join(quoteAll(titles), ", "), displayName(p.platform)),
		"export one group of breakdowns per file: "+p.setColumns())
}

// perCampaign says whether the file's set is kept per campaign
// (catalog.BreakdownSet.Level): its lines are summed up to their campaigns.
// Delivery and Meta's device_platform keep ad sets and ads, Google's
// location ad groups (setLevel).
func (p *parser) perCampaign() bool { return p.setLevel() == catalog.LevelCampaign }

// setLevel is the finest object level the file's set keeps: a line's
// finer objects are summed up to it.
func (p *parser) setLevel() catalog.Level {
	s, _ := catalog.BreakdownSetByKey(p.set)
	return s.Level
}

// adLevelSet is the Breakdown of a fact kept per ad: "" for delivery (as
// every delivery row is written), else the set's key.
func (p *parser) adLevelSet() string {
	if p.set == catalog.Delivery {
		return ""
	}
	return p.set
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// dimTitles are the column titles of the breakdown dimensions, per platform,
// for the refusal's fix.
var dimTitles = map[string]map[string]string{
	Meta:   {"country": "Country", "device": "Impression device", "publisher_platform": "Platform", "age": "Age", "gender": "Gender", "placement": "Placement"},
	Google: {"country": "Country/Territory (User location)", "device": "Device", "age": "Age", "gender": "Gender"},
	TikTok: {"age": "Age", "gender": "Gender", "placement": "Placement"},
}

// setColumns lists the platform's breakdown sets by their columns: "Age and
// Gender; Placement, Platform and Impression device; Country, Impression
// device and Platform (or none)".
func (p *parser) setColumns() string {
	var groups []string
	for _, s := range catalog.PlatformSets(p.platform) {
		if s.Key == ConversionActionSet {
			continue
		}
		var cols []string
		for _, d := range s.Dimensions {
			if t := dimTitles[p.platform][d]; t != "" {
				cols = append(cols, t)
			}
		}
		switch {
		case len(cols) == 0:
			groups = append(groups, "no breakdown column (delivery)")
		case s.Key == catalog.Delivery && len(cols) == 1:
			groups = append(groups, cols[0]+" or none (delivery)")
		case s.Key == catalog.Delivery:
			groups = append(groups, andList(cols)+", any of them or none (delivery)")
		default:
			groups = append(groups, andList(cols)+" ("+s.Label+")")
		}
	}
	return strings.Join(groups, "; ")
}

func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// ageRE matches an age bracket as the exports write it: "18-24", "18 - 24",
// TikTok's API form AGE_18_24.
var ageRE = regexp.MustCompile(`^(?:age_)?(\d{2})\s*[-–_]\s*(\d{2,3})$`)

// AgeValues are the age values an import stores (TikTok's oldest bracket is
// 55+, which is neither 55-64 nor 65+).
var AgeValues = []string{"13-17", "18-24", "25-34", "35-44", "45-54", "55-64", "65+", "55+", "unknown"}

// age maps an export's age bracket to the catalog's values; "" when it is
// not one.
func age(v string) string {
	f := fold(v)
	switch f {
	case "unknown", "undetermined", "desconocido", "desconocida", "indeterminado", "indeterminada", "none", "age_unknown":
		return "unknown"
	case "65+", "65 or more", "65 or older", "65 o mas", "65 y mas", "65 anos o mas", "age_65_100", "65-100":
		return "65+"
	case "55+", "55 or more", "55 o mas", "age_55_100", "55-100":
		return "55+"
	}
	m := ageRE.FindStringSubmatch(f)
	if m == nil {
		return ""
	}
	out := m[1] + "-" + m[2]
	if !slices.Contains(AgeValues, out) {
		return ""
	}
	return out
}

// gender maps an export's gender to female, male or unknown; "" when it is
// not one.
func gender(v string) string {
	switch fold(v) {
	case "female", "women", "woman", "f", "mujer", "mujeres", "femenino":
		return "female"
	case "male", "men", "man", "m", "hombre", "hombres", "masculino":
		return "male"
	case "unknown", "undetermined", "desconocido", "indeterminado", "none", "uncategorized", "other", "otro":
		return "unknown"
	}
	return ""
}

// metaPlatforms are the publisher platforms a Meta placement label may start
// with ("Facebook Stories", "Instagram Reels"), longest first.
var metaPlatforms = []struct{ prefix, platform string }{
	{"audience network ", "audience_network"}, {"facebook ", "facebook"}, {"instagram ", "instagram"},
	{"messenger ", "messenger"}, {"threads ", "threads"},
}

// metaPositions maps Ads Manager's placement labels (without their platform,
// folded) to the short platform_position values the catalog uses.
var metaPositions = map[string]string{
	"feed": "feed", "feeds": "feed", "news feed": "feed", "seccion de noticias": "feed", "noticias": "feed",
	"stories": "story", "story": "story", "historias": "story",
	"reels": "reels", "reel": "reels",
	"explore": "explore", "explorar": "explore", "explore home": "explore_home",
	"marketplace":    "marketplace",
	"search results": "search", "search": "search", "resultados de busqueda": "search",
	"in-stream videos": "instream_video", "in-stream video": "instream_video", "instream video": "instream_video", "videos in-stream": "instream_video",
	"right column": "right_hand_column", "right hand column": "right_hand_column", "columna derecha": "right_hand_column",
	"video feeds": "video_feeds", "profile feed": "profile_feed", "profile reels": "profile_reels",
	"inbox": "messenger_inbox", "bandeja de entrada": "messenger_inbox",
	"reels overlay ads": "reels_overlay", "overlay ads in reels": "reels_overlay",
	"native, banner and interstitial": "an_classic", "rewarded videos": "rewarded_video", "rewarded video": "rewarded_video",
	"sponsored messages": "messenger_sponsored_messages", "notifications": "notification",
	"unknown": "unknown", "desconocido": "unknown",
}

// metaPlacement maps a Meta placement label to its position and the
// platform its label names ("" when it names none: "Feed").
func metaPlacement(v string) (position, platform string) {
	f := fold(v)
	for _, mp := range metaPlatforms {
		if strings.HasPrefix(f, mp.prefix) {
			f, platform = strings.TrimPrefix(f, mp.prefix), mp.platform
			break
		}
	}
	if pos, ok := metaPositions[f]; ok {
		return pos, platform
	}
	return snake(f), platform
}

// tiktokPlacement maps TikTok's placement ("TikTok", "Pangle", "Global App
// Bundle", or the API's PLACEMENT_TIKTOK) to the catalog's value, which is
// also its publisher platform.
func tiktokPlacement(v string) string {
	return strings.TrimPrefix(snake(v), "placement_")
}

// attributionRE finds the parts of Meta's attribution setting in English
// ("7-day click or 1-day view", "7-day click, 1-day view and 1-day
// engaged-view") and Spanish ("clic de 7 días o visualización de 1 día").
var (
	attributionEN = regexp.MustCompile(`(\d+)[- ]days? (click|engaged[- ]view|view)`)
	attributionES = regexp.MustCompile(`(clic|visualizacion con interaccion|visualizacion)(?: durante| de)? (\d+) dias?`)
)

// attributionSetting reads a Meta attribution setting as the catalog's
// window name (catalog.ParseAttributionWindow).
func attributionSetting(v string) (string, error) {
	f := fold(v)
	var parts []string
	add := func(days, what string) {
		switch {
		case strings.HasPrefix(what, "engaged"), strings.HasSuffix(what, "interaccion"):
			parts = append(parts, days+"d_ev")
		case strings.HasPrefix(what, "clic"):
			parts = append(parts, days+"d_click")
		default:
			parts = append(parts, days+"d_view")
		}
	}
	for _, m := range attributionEN.FindAllStringSubmatch(f, -1) {
		add(m[1], m[2])
	}
	for _, m := range attributionES.FindAllStringSubmatch(f, -1) {
		add(m[2], m[1])
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("not an attribution setting as Ads Manager writes it (like \"7-day click or 1-day view\")")
	}
	w, _, err := catalog.ParseAttributionWindow(strings.Join(parts, "_"))
	return w, err
}

// conversionActions describes what the file's conversions count, for
// ads.Account.ConversionActions.
func (p *parser) conversionActions() string {
	conv := p.has(measureKind(catalog.Conversions))
	switch p.platform {
	case Meta:
		switch {
		case conv:
			return purchaseAction
		case p.has(colResults):
			return "each campaign's result (Results)"
		}
	case TikTok:
		if conv {
			return "the optimization event (Conversions)"
		}
	case Google:
		if conv {
			return "the conversion actions in Conversions"
		}
	}
	return ""
}

// byAction: the file's lines also give conversions by action (Meta delivery
// exports with Purchases and another action's column). Without Purchases the
// conversions are the Results, which no action's rows would sum to.
func (p *parser) byAction() bool {
	if p.platform != Meta || p.set != catalog.Delivery {
		return false
	}
	for i := range metaActions {
		if p.has(actionKind(i, false)) || p.has(actionKind(i, true)) {
			return p.has(measureKind(catalog.Conversions))
		}
	}
	return false
}

// noteActions says what becomes of the per-action columns.
func (p *parser) noteActions() {
	var present []string
	for i, a := range metaActions {
		if p.has(actionKind(i, false)) || p.has(actionKind(i, true)) {
			present = append(present, a.action)
		}
	}
	switch {
	case len(present) == 0:
	case p.byAction():
		p.rep.note("conversions by action stored per campaign and day (conversion_action %s): purchase is the conversions of the delivery rows, the others are not in conversions",
			strings.Join(append([]string{purchaseAction}, present...), ", "))
	case p.set != catalog.Delivery:
		p.rep.note("conversions by action (%s) not imported: they are read from delivery exports only (without age, gender or placement)", strings.Join(present, ", "))
	default:
		p.rep.note("conversions by action (%s) not imported: the file has no Purchases column, so its conversions are the Results, which no action's rows sum to (add Purchases to the report)",
			strings.Join(present, ", "))
	}
}

// displayName is the platform's product name ("Meta Ads").
func displayName(platform string) string {
	if pl, ok := catalog.PlatformByName(platform); ok {
		return pl.DisplayName
	}
	return platform
}
