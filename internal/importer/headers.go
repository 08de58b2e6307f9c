package importer

import (
	"regexp"
	"strings"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// kind is what a column holds.
type kind int

const (
	colUnknown kind = iota // not recognized: ignored, listed in the report
	colDerived             // a ratio or other value recomputed from imported parts: ignored
	colDay
	colReportStart
	colReportEnd
	colPeriod // a week or month breakdown: the warehouse needs days
	colAccountID
	colAccountName
	colCurrency
	colCampaignID
	colCampaignName
	colAdSetID
	colAdSetName
	colAdID
	colAdName
	colObjective
	colStatus
	colCountry
	colDevice
	colPublisher
	// colAge, colGender and colPlacement are the breakdown sets' columns:
	// their lines become the rows of a set other than delivery (chooseSet).
	colAge
	colGender
	colPlacement
	colAttribution // Meta's "Attribution setting": the account's window
	colBreakdown   // region, network…: rows are summed, reach is left out
	colResults     // Meta's Results: conversions when there is no Purchases column
	colResultType  // what each row's Results are (purchases, link clicks, reach…)
	colReach
	// colAction is the first of Meta's per-action result columns: action i of
	// metaActions counts in colAction + 2i, its value in colAction + 2i + 1.
	colAction
	// colMeasure is the first of the stored measures' kinds: measure m of the
	// catalog is colMeasure + m (see measureKind), its headers the catalog's.
	colMeasure = colAction + 2*numMetaActions
	numKinds   = colMeasure + kind(catalog.NumMeasures)
)

var kindNames = map[kind]string{
	colDay: "day", colReportStart: "reporting start", colReportEnd: "reporting end", colPeriod: "week or month",
	colAccountID: "account ID", colAccountName: "account name", colCurrency: "currency",
	colCampaignID: "campaign ID", colCampaignName: "campaign name", colAdSetID: "ad set ID",
	colAdSetName: "ad set name", colAdID: "ad ID", colAdName: "ad name", colObjective: "objective",
	colStatus: "status", colCountry: "country", colDevice: "device", colPublisher: "publisher platform",
	colResults: "results", colResultType: "result type", colReach: "reach",
	colAge: "age", colGender: "gender", colPlacement: "placement", colAttribution: "attribution setting",
}

// isMetric: the columns whose cells are numbers.
func (k kind) isMetric() bool { return k >= colResults && k != colResultType }

// isDimension: the columns that name what a row is about (all empty on a totals row).
func (k kind) isDimension() bool {
	return k >= colAccountID && k <= colAdName && k != colCurrency || k >= colCountry && k <= colPlacement
}

// platform bits of a header.
const (
	pMeta   = 1
	pGoogle = 2
	pTikTok = 4
	pBoth   = pMeta | pGoogle
	pAll    = pMeta | pGoogle | pTikTok
)

// platformBits are the export platforms in bit order (bit 1<<i is platformBits[i]).
var platformBits = [...]string{Meta, Google, TikTok}

// bitOf is the header bit of an export platform (0: none).
func bitOf(platform string) int {
	for i, p := range platformBits {
		if p == platform {
			return 1 << i
		}
	}
	return 0
}

// headerDef is what a folded header means. The same title can mean different
// things on different platforms: "Clicks (all)" is Meta's clicks but not the
// clicks TikTok's API reports, "Platform" is Meta's publisher platform but
// TikTok's operating system.
type headerDef struct {
	// kind is the meaning on the first platform that defined the header (for
	// the checks that ask whether a title is known at all); kinds[i] is the
	// meaning on platform bit 1<<i (colUnknown where it is not a title).
	kind     kind
	kinds    [len(platformBits)]kind
	platform int    // the platforms whose title it is
	lang     string // en, es, or "" when the same in both
}

// kindOn is what the header means in an export of the platform of bit: a
// title of another platform is unknown, unless it is a ratio or value that is
// ignored wherever it appears.
func (d headerDef) kindOn(bit int) kind {
	if d.platform == 0 {
		return d.kind // a ratio recognised by its prefix, or unknown
	}
	if d.platform&bit != 0 {
		for i := range d.kinds {
			if bit == 1<<i {
				return d.kinds[i]
			}
		}
	}
	for _, k := range d.kinds {
		if k != colUnknown && k != colDerived {
			return colUnknown
		}
	}
	return colDerived
}

// headers maps a folded header (see foldHeader) to its meaning.
var headers = map[string]headerDef{}

// def adds names to the dictionary. A name in both languages or on several
// platforms is merged; one name with two meanings on one platform is a mistake.
func def(k kind, platform int, lang string, names ...string) {
	for _, n := range names {
		d, ok := headers[n]
		if !ok {
			d = headerDef{kind: k, lang: lang}
		} else if d.lang != lang {
			d.lang = ""
		}
		for i := range d.kinds {
			if platform&(1<<i) == 0 {
				continue
			}
			if d.kinds[i] != colUnknown && d.kinds[i] != k {
				panic("importer: header " + n + " defined twice")
			}
			d.kinds[i] = k
		}
		d.platform |= platform
		headers[n] = d
	}
}

func init() {
	defineMetricHeaders()
	defineActionHeaders()

	// Meta Ads Manager, English.
	def(colReportStart, pMeta, "en", "reporting starts")
	def(colReportEnd, pMeta, "en", "reporting ends")
	def(colAccountName, pMeta, "en", "account name")
	def(colAccountID, pMeta, "en", "account id")
	def(colCampaignName, pMeta, "en", "campaign name")
	def(colCampaignID, pBoth, "en", "campaign id")
	def(colAdSetName, pMeta, "en", "ad set name")
	def(colAdSetID, pMeta, "en", "ad set id")
	def(colAdName, pMeta, "en", "ad name")
	def(colAdID, pBoth, "en", "ad id")
	def(colResults, pMeta, "en", "results")
	def(colResultType, pMeta, "en", "result indicator", "result type")
	def(colStatus, pMeta, "en", "campaign delivery", "delivery")
	def(colObjective, pMeta, "en", "objective")
	def(colDevice, pMeta, "en", "device platform", "impression device")
	def(colPublisher, pMeta, "en", "platform")
	def(colCountry, pMeta, "en", "country")
	def(colAge, pMeta, "en", "age")
	def(colGender, pMeta, "en", "gender")
	def(colPlacement, pMeta, "en", "placement")
	def(colAttribution, pMeta, "en", "attribution setting")
	def(colBreakdown, pMeta, "en", "region", "dma region")
	def(colDerived, pMeta, "en", "frequency", "cost per result", "cpm (cost per 1,000 impressions)", "ctr (all)",
		"cpc (all)", "cpc (cost per link click)", "ctr (link click-through rate)", "purchase roas (return on ad spend)",
		"cost per purchase", "ends", "starts", "ad set budget", "ad set budget type",
		"budget", "bid", "bid type", "thruplays", "cost per thruplay", "quality ranking", "result rate",
		"ad set delivery", "ad delivery", "ad set run status", "ad creative", "unique link clicks")

	// Meta Ads Manager, Spanish.
	def(colReportStart, pMeta, "es", "inicio del informe")
	def(colReportEnd, pMeta, "es", "fin del informe")
	def(colAccountName, pMeta, "es", "nombre de la cuenta")
	def(colAccountID, pMeta, "es", "identificador de la cuenta", "id de la cuenta")
	def(colCampaignName, pMeta, "es", "nombre de la campana")
	def(colCampaignID, pMeta, "es", "identificador de la campana", "id de la campana")
	def(colAdSetName, pMeta, "es", "nombre del conjunto de anuncios")
	def(colAdSetID, pMeta, "es", "identificador del conjunto de anuncios", "id del conjunto de anuncios")
	def(colAdName, pMeta, "es", "nombre del anuncio")
	def(colAdID, pMeta, "es", "identificador del anuncio", "id del anuncio")
	def(colResults, pMeta, "es", "resultados")
	def(colResultType, pMeta, "es", "indicador de resultados", "indicador de resultado", "tipo de resultado")
	def(colStatus, pMeta, "es", "entrega de la campana", "entrega")
	def(colObjective, pMeta, "es", "objetivo")
	def(colDevice, pMeta, "es", "plataforma del dispositivo", "dispositivo de impresion")
	def(colPublisher, pMeta, "es", "plataforma")
	def(colCountry, pMeta, "es", "pais")
	def(colAge, pMeta, "es", "edad")
	def(colGender, pMeta, "es", "sexo")
	def(colPlacement, pMeta, "es", "ubicacion")
	def(colAttribution, pMeta, "es", "configuracion de atribucion")
	def(colBreakdown, pMeta, "es", "region")
	def(colDerived, pMeta, "es", "frecuencia", "costo por resultado", "coste por resultado",
		"cpm (costo por mil impresiones)", "cpm (coste por mil impresiones)", "ctr (todos)", "cpc (todos)",
		"cpc (costo por clic en el enlace)", "cpc (coste por clic en el enlace)", "ctr (porcentaje de clics en el enlace)",
		"roas (retorno de la inversion en publicidad) de compras", "costo por compra", "coste por compra",
		"finalizacion", "inicio", "presupuesto del conjunto de anuncios",
		"presupuesto", "thruplays", "puja")

	// Google Ads, English.
	def(colDay, pBoth, "en", "day", "date")
	def(colPeriod, pBoth, "en", "week", "month", "quarter", "year")
	def(colCampaignName, pGoogle, "en", "campaign")
	def(colAdSetName, pGoogle, "en", "ad group")
	def(colAdSetID, pGoogle, "en", "ad group id")
	def(colAccountName, pGoogle, "en", "account")
	def(colAccountID, pGoogle, "en", "customer id")
	def(colCurrency, pBoth, "en", "currency code", "currency")
	def(colObjective, pGoogle, "en", "campaign type", "advertising channel type")
	def(colStatus, pGoogle, "en", "campaign status", "campaign state", "status")
	def(colDevice, pGoogle, "en", "device")
	// The age and gender reports (Audiences → Demographics) are separate
	// downloads: each is its own breakdown set.
	def(colAge, pGoogle, "en", "age", "age range")
	def(colGender, pGoogle, "en", "gender")
	// The user locations report (Locations → User locations): the location
	// set, per ad group at the finest.
	def(colCountry, pGoogle, "en", "country/territory (user location)", "country/territory", "country")
	def(colBreakdown, pGoogle, "en", "network", "network (with search partners)",
		"ad group status", "ad group state", "keyword", "search keyword")
	def(colDerived, pGoogle, "en", "ctr", "avg. cpc", "avg. cpm", "avg. cpv", "avg. cost", "cost / conv.",
		"conv. rate", "conv. value / cost", "interactions", "interaction rate", "all conv.", "all conv. value",
		"cost / all conv.", "view rate", "budget", "bid strategy type", "search impr. share", "optimization score",
		"campaign bid strategy type", "budget name", "view-through conv.")

	// Google Ads, Spanish.
	def(colDay, pBoth, "es", "dia", "fecha")
	def(colPeriod, pBoth, "es", "semana", "mes", "trimestre", "ano")
	def(colCampaignName, pGoogle, "es", "campana")
	def(colCampaignID, pGoogle, "es", "id de campana", "id. de campana", "id de la campana")
	def(colAdSetName, pGoogle, "es", "grupo de anuncios")
	def(colAdSetID, pGoogle, "es", "id del grupo de anuncios", "id. del grupo de anuncios")
	def(colAccountName, pGoogle, "es", "cuenta")
	def(colAccountID, pGoogle, "es", "id de cliente", "id. de cliente")
	def(colCurrency, pBoth, "es", "codigo de moneda", "moneda", "divisa")
	def(colObjective, pGoogle, "es", "tipo de campana")
	def(colStatus, pGoogle, "es", "estado de la campana", "estado")
	def(colDevice, pGoogle, "es", "dispositivo")
	def(colAge, pGoogle, "es", "edad", "rango de edad")
	def(colGender, pGoogle, "es", "sexo")
	def(colCountry, pGoogle, "es", "pais/territorio (ubicacion del usuario)", "pais/territorio", "pais")
	def(colBreakdown, pGoogle, "es", "red", "red (con partners de busqueda)",
		"estado del grupo de anuncios", "palabra clave")
	def(colDerived, pGoogle, "es", "ctr", "cpc medio", "cpm medio", "coste medio", "costo promedio", "coste/conv.",
		"tasa de conv.", "interacciones", "porcentaje de interaccion", "todas las conv.", "presupuesto",
		"tipo de estrategia de puja", "cuota de impr. de busqueda", "nivel de optimizacion")

	// TikTok Ads Manager, English: a custom report's export (Analytics → Custom
	// reports), whose time dimension is the "By Day" column. Titles shared with
	// Meta or Google ("Campaign name", "Cost") are added to theirs.
	def(colDay, pTikTok, "en", "by day", "date")
	def(colPeriod, pTikTok, "en", "by hour", "by week", "by month", "hour", "week", "month")
	def(colAccountName, pTikTok, "en", "account name", "advertiser name", "ad account name")
	def(colAccountID, pTikTok, "en", "account id", "advertiser id", "ad account id")
	def(colCurrency, pTikTok, "en", "currency", "account currency")
	def(colCampaignName, pTikTok, "en", "campaign name")
	def(colCampaignID, pTikTok, "en", "campaign id")
	def(colAdSetName, pTikTok, "en", "ad group name")
	def(colAdSetID, pTikTok, "en", "ad group id")
	def(colAdName, pTikTok, "en", "ad name")
	def(colAdID, pTikTok, "en", "ad id")
	def(colObjective, pTikTok, "en", "advertising objective", "objective", "objective type", "campaign objective")
	// "Primary status" is the status of the report's own rows: the campaign's
	// only in a campaign report (see tiktokStatus).
	def(colStatus, pTikTok, "en", "campaign status", "primary status")
	def(colAge, pTikTok, "en", "age")
	def(colGender, pTikTok, "en", "gender")
	def(colPlacement, pTikTok, "en", "placement", "placements")
	def(colBreakdown, pTikTok, "en", "country/region", "location",
		"platform", "operating system", "os", "language", "device brand", "device price", "network type",
		"interest category", "province")
	def(colDerived, pTikTok, "en", "frequency", "ctr (destination)", "ctr (all)", "cpc (destination)", "cpc (all)", "cpm",
		"cost per 1,000 people reached", "cost per conversion", "conversion rate (cvr)", "conversion rate (cvr, clicks)",
		"conversion rate", "cvr", "cvr (clicks)", "cvr (impressions)", "cpa", "real-time conversions",
		"real-time cost per conversion", "real-time conversion rate (cvr)", "real-time conversion rate (cvr, clicks)",
		"results", "cost per result", "result rate", "result type", "clicks (all)", "paid likes", "paid comments",
		"paid shares", "paid followers", "paid profile visits", "profile visits", "follows", "likes", "comments", "shares",
		"2-second video views", "6-second video views", "6-second views (focused view)", "focused view",
		"video views at 25%", "video views at 50%", "video views at 75%", "average play time per video view",
		"average play time per user", "video average watch time per video view", "video average watch time per person",
		"complete payment", "total complete payment", "complete payment roas", "value per complete payment",
		"complete payment rate", "cost per complete payment", "budget", "campaign budget", "ad group budget", "bid",
		"bid strategy", "optimization goal", "billing event", "secondary status", "ad group status", "ad status",
		"attribution setting", "campaign type", "landing page views", "skan conversions")
}

// currencySuffix is a currency code in parentheses ending a header: "Amount spent (USD)".
var currencySuffix = regexp.MustCompile(`\s*\(([A-Za-z]{3})\)\s*$`)

// foldHeader normalizes a header for the dictionary: the currency suffix removed
// (and returned, upper case), lower case, no accents, single spaces.
func foldHeader(h string) (folded, currency string) {
	h = strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")
	h = strings.Trim(h, `"`)
	if m := currencySuffix.FindStringSubmatchIndex(h); m != nil {
		code := h[m[2]:m[3]]
		if code == strings.ToUpper(code) { // "(USD)", not "(all)"
			currency = code
			h = h[:m[0]]
		}
	}
	h = strings.Join(strings.Fields(strings.ReplaceAll(h, "\u00a0", " ")), " ")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		if a, ok := unaccent[r]; ok {
			r = a
		}
		b.WriteRune(r)
	}
	return b.String(), currency
}

// lookupHeader finds a header in the dictionary; unknown headers that look like
// ratios are colDerived.
func lookupHeader(folded string) headerDef {
	if d, ok := headers[folded]; ok {
		return d
	}
	for _, p := range []string{"cost per ", "cost / ", "avg. ", "cpc", "cpm", "ctr", "roas", "coste por ", "costo por ",
		"coste/", "tasa de ", "% ", "unique ", "unicos ", "frequency", "frecuencia"} {
		if strings.HasPrefix(folded, p) {
			return headerDef{kind: colDerived}
		}
	}
	return headerDef{kind: colUnknown}
}
