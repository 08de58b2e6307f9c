package googleads

import "strings"

// Google's enums in adsmcp's vocabulary.

// deviceNames maps segments.device to the device dimension (the demo's and
// Meta's values: mobile, desktop, tablet).
var deviceNames = map[string]string{
	"MOBILE": "mobile", "DESKTOP": "desktop", "TABLET": "tablet", "CONNECTED_TV": "connected_tv",
	"OTHER": "other", "UNKNOWN": "", "UNSPECIFIED": "",
}

// networkNames maps segments.ad_network_type to publisher_platform: where the
// ad ran (search, display, youtube, …).
var networkNames = map[string]string{
	"SEARCH": "search", "SEARCH_PARTNERS": "search_partners", "CONTENT": "display", "YOUTUBE": "youtube",
	"YOUTUBE_SEARCH": "youtube_search", "YOUTUBE_WATCH": "youtube_watch", "GOOGLE_TV": "google_tv",
	"GOOGLE_OWNED_CHANNELS": "google_owned_channels", "GMAIL": "gmail", "DISCOVER": "discover", "MAPS": "maps",
	"MIXED": "mixed", "UNKNOWN": "", "UNSPECIFIED": "",
}

// ageNames maps ad_group_criterion.age_range.type (AgeRangeType) to the age
// dimension's brackets; UNKNOWN (a newer API version's value) and UNSPECIFIED
// are empty, like device's.
var ageNames = map[string]string{
	"AGE_RANGE_18_24": "18-24", "AGE_RANGE_25_34": "25-34", "AGE_RANGE_35_44": "35-44", "AGE_RANGE_45_54": "45-54",
	"AGE_RANGE_55_64": "55-64", "AGE_RANGE_65_UP": "65+", "AGE_RANGE_UNDETERMINED": "unknown",
	"UNKNOWN": "", "UNSPECIFIED": "",
}

// genderNames maps ad_group_criterion.gender.type (GenderType) to gender.
var genderNames = map[string]string{
	"FEMALE": "female", "MALE": "male", "UNDETERMINED": "unknown", "UNKNOWN": "", "UNSPECIFIED": "",
}

// campaignStatus maps campaign.status to the normalized campaign statuses.
func campaignStatus(s string) string {
	switch s {
	case "ENABLED":
		return "ACTIVE"
	case "PAUSED":
		return "PAUSED"
	case "REMOVED":
		return "ARCHIVED"
	case "UNSPECIFIED", "UNKNOWN":
		return ""
	}
	return s
}

// enumName maps an enum value through names; a value the table does not know
// (a newer API version's) is kept, lower-cased.
func enumName(names map[string]string, v string) string {
	if n, ok := names[v]; ok {
		return n
	}
	return strings.ToLower(v)
}

// countryCodes maps country criterion IDs (geo target constants) to ISO 3166-1
// alpha-2 codes. Google's country criterion IDs are 2000 + the ISO 3166-1
// numeric code; an ID missing here is looked up with a geo_target_constant
// query (and cached).
var countryCodes = map[string]string{
	"2004": "AF", "2008": "AL", "2010": "AQ", "2012": "DZ", "2016": "AS", "2020": "AD", "2024": "AO", "2028": "AG",
	"2031": "AZ", "2032": "AR", "2036": "AU", "2040": "AT", "2044": "BS", "2048": "BH", "2050": "BD", "2051": "AM",
	"2052": "BB", "2056": "BE", "2060": "BM", "2064": "BT", "2068": "BO", "2070": "BA", "2072": "BW", "2074": "BV",
	"2076": "BR", "2084": "BZ", "2086": "IO", "2090": "SB", "2092": "VG", "2096": "BN", "2100": "BG", "2104": "MM",
	"2108": "BI", "2112": "BY", "2116": "KH", "2120": "CM", "2124": "CA", "2132": "CV", "2136": "KY", "2140": "CF",
	"2144": "LK", "2148": "TD", "2152": "CL", "2156": "CN", "2158": "TW", "2162": "CX", "2166": "CC", "2170": "CO",
	"2174": "KM", "2175": "YT", "2178": "CG", "2180": "CD", "2184": "CK", "2188": "CR", "2191": "HR", "2192": "CU",
	"2196": "CY", "2203": "CZ", "2204": "BJ", "2208": "DK", "2212": "DM", "2214": "DO", "2218": "EC", "2222": "SV",
	"2226": "GQ", "2231": "ET", "2232": "ER", "2233": "EE", "2234": "FO", "2238": "FK", "2239": "GS", "2242": "FJ",
	"2246": "FI", "2248": "AX", "2250": "FR", "2254": "GF", "2258": "PF", "2260": "TF", "2262": "DJ", "2266": "GA",
	"2268": "GE", "2270": "GM", "2275": "PS", "2276": "DE", "2288": "GH", "2292": "GI", "2296": "KI", "2300": "GR",
	"2304": "GL", "2308": "GD", "2312": "GP", "2316": "GU", "2320": "GT", "2324": "GN", "2328": "GY", "2332": "HT",
	"2334": "HM", "2336": "VA", "2340": "HN", "2344": "HK", "2348": "HU", "2352": "IS", "2356": "IN", "2360": "ID",
	"2364": "IR", "2368": "IQ", "2372": "IE", "2376": "IL", "2380": "IT", "2384": "CI", "2388": "JM", "2392": "JP",
	"2398": "KZ", "2400": "JO", "2404": "KE", "2408": "KP", "2410": "KR", "2414": "KW", "2417": "KG", "2418": "LA",
	"2422": "LB", "2426": "LS", "2428": "LV", "2430": "LR", "2434": "LY", "2438": "LI", "2440": "LT", "2442": "LU",
	"2446": "MO", "2450": "MG", "2454": "MW", "2458": "MY", "2462": "MV", "2466": "ML", "2470": "MT", "2474": "MQ",
	"2478": "MR", "2480": "MU", "2484": "MX", "2492": "MC", "2496": "MN", "2498": "MD", "2499": "ME", "2500": "MS",
	"2504": "MA", "2508": "MZ", "2512": "OM", "2516": "NA", "2520": "NR", "2524": "NP", "2528": "NL", "2531": "CW",
	"2533": "AW", "2534": "SX", "2535": "BQ", "2540": "NC", "2548": "VU", "2554": "NZ", "2558": "NI", "2562": "NE",
	"2566": "NG", "2570": "NU", "2574": "NF", "2578": "NO", "2580": "MP", "2581": "UM", "2583": "FM", "2584": "MH",
	"2585": "PW", "2586": "PK", "2591": "PA", "2598": "PG", "2600": "PY", "2604": "PE", "2608": "PH", "2612": "PN",
	"2616": "PL", "2620": "PT", "2624": "GW", "2626": "TL", "2630": "PR", "2634": "QA", "2638": "RE", "2642": "RO",
	"2643": "RU", "2646": "RW", "2652": "BL", "2654": "SH", "2659": "KN", "2660": "AI", "2662": "LC", "2663": "MF",
	"2666": "PM", "2670": "VC", "2674": "SM", "2678": "ST", "2682": "SA", "2686": "SN", "2688": "RS", "2690": "SC",
	"2694": "SL", "2702": "SG", "2703": "SK", "2704": "VN", "2705": "SI", "2706": "SO", "2710": "ZA", "2716": "ZW",
	"2724": "ES", "2728": "SS", "2729": "SD", "2732": "EH", "2740": "SR", "2744": "SJ", "2748": "SZ", "2752": "SE",
	"2756": "CH", "2760": "SY", "2762": "TJ", "2764": "TH", "2768": "TG", "2772": "TK", "2776": "TO", "2780": "TT",
	"2784": "AE", "2788": "TN", "2792": "TR", "2795": "TM", "2796": "TC", "2798": "TV", "2800": "UG", "2804": "UA",
	"2807": "MK", "2818": "EG", "2826": "GB", "2831": "GG", "2832": "JE", "2833": "IM", "2834": "TZ", "2840": "US",
	"2850": "VI", "2854": "BF", "2858": "UY", "2860": "UZ", "2862": "VE", "2876": "WF", "2882": "WS", "2887": "YE",
	"2894": "ZM",
}
