package importer

import "strings"

// Values of the descriptive columns, mapped to the warehouse's.

// objectives maps Ads Manager's and Google Ads' labels (folded) to the API values
// the warehouse holds (Meta OUTCOME_*, Google's advertising channel types).
var objectives = map[string]string{
	"sales": "OUTCOME_SALES", "ventas": "OUTCOME_SALES",
	"traffic": "OUTCOME_TRAFFIC", "trafico": "OUTCOME_TRAFFIC",
	"awareness": "OUTCOME_AWARENESS", "reconocimiento": "OUTCOME_AWARENESS",
	"engagement": "OUTCOME_ENGAGEMENT", "interaccion": "OUTCOME_ENGAGEMENT",
	"leads": "OUTCOME_LEADS", "clientes potenciales": "OUTCOME_LEADS",
	"app promotion": "OUTCOME_APP_PROMOTION", "promocion de la app": "OUTCOME_APP_PROMOTION",
	"search": "SEARCH", "busqueda": "SEARCH", "red de busqueda": "SEARCH",
	"performance max": "PERFORMANCE_MAX", "maximo rendimiento": "PERFORMANCE_MAX",
	"display": "DISPLAY", "red de display": "DISPLAY",
	"video": "VIDEO", "shopping": "SHOPPING", "demand gen": "DEMAND_GEN", "generacion de demanda": "DEMAND_GEN",
}

// tiktokObjectives maps TikTok Ads Manager's objective labels (folded) to the
// API's objective_type values (v1.3). "Sales" is left as SALES: the API splits
// it into WEB_CONVERSIONS and PRODUCT_SALES by where the sale happens, which the
// export does not say.
var tiktokObjectives = map[string]string{
	"reach": "REACH", "traffic": "TRAFFIC", "video views": "VIDEO_VIEWS", "community interaction": "ENGAGEMENT",
	"app promotion": "APP_PROMOTION", "app installs": "APP_PROMOTION", "lead generation": "LEAD_GENERATION",
	"website conversions": "WEB_CONVERSIONS", "conversions": "WEB_CONVERSIONS", "product sales": "PRODUCT_SALES",
}

func tiktokObjective(v string) string {
	if o, ok := tiktokObjectives[fold(v)]; ok {
		return o
	}
	return strings.ToUpper(snake(v))
}

func objective(v string) string {
	if v == "" {
		return ""
	}
	if o, ok := objectives[fold(v)]; ok {
		return o
	}
	return strings.ToUpper(snake(v))
}

// status maps delivery and status labels to ACTIVE, PAUSED or ARCHIVED (the
// warehouse's normalized values); unknown labels are left empty.
func status(v string) string {
	switch f := fold(v); {
	case f == "":
		return ""
	case hasAny(f, "removed", "deleted", "archived", "completed", "eliminad", "archivad", "finalizad", "completad"):
		return "ARCHIVED"
	case hasAny(f, "paused", "inactive", "off", "not delivering", "pausad", "inactiv", "desactivad", "no se esta publicando"):
		return "PAUSED"
	case hasAny(f, "active", "enabled", "eligible", "delivering", "learning", "activ", "habilitad", "apta", "apto"):
		return "ACTIVE"
	}
	return ""
}

func hasAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// country keeps ISO 3166-1 alpha-2 codes (Meta's country breakdown); anything
// else ("Unknown") is empty.
func country(v string) string {
	if len(v) == 2 && isLetters(v) {
		return strings.ToUpper(v)
	}
	return ""
}

func isLetters(s string) bool {
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// device maps device labels to mobile, desktop or tablet (the warehouse's values).
func device(v string) string {
	switch f := fold(v); {
	case f == "":
		return ""
	case hasAny(f, "tablet", "ipad"):
		return "tablet"
	case hasAny(f, "mobile", "phone", "movil", "moviles", "iphone", "ipod", "smartphone", "celular"):
		return "mobile"
	case hasAny(f, "desktop", "computer", "ordenador", "computadora", "escritorio"):
		return "desktop"
	}
	return snake(v)
}

// snake folds a label to lower_snake_case: "Audience Network" → audience_network.
func snake(v string) string {
	f := fold(v)
	if f == "" {
		return ""
	}
	return strings.Join(strings.FieldsFunc(f, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}), "_")
}

// notConversionMark is "x" when a result type is not a conversion (for memoizing).
func notConversionMark(resultType string) string {
	if notConversion(resultType) {
		return "x"
	}
	return ""
}

// notConversion reports whether a Meta result type is not a conversion: reach,
// impressions, clicks, views, engagement.
func notConversion(resultType string) bool {
	f := fold(resultType)
	return f != "" && hasAny(f, "reach", "impression", "link_click", "link click", "landing_page_view", "landing page view",
		"video_view", "video view", "thruplay", "engagement", "post_engagement", "page_like", "ad_recall", "profile_visit",
		"alcance", "impresion", "clic", "visualizacion", "reproduccion", "interaccion", "recuerdo")
}
