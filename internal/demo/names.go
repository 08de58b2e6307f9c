package demo

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Names follow the conventions media buyers actually use ("Prospecting - US -
// Lookalike 1%", "Brand Search - Exact", "BFCM 2025 - Retargeting"), so campaign_name
// filters such as CONTAINS "Retargeting" or STARTS_WITH "BFCM" find something, and
// the same staple names recur across accounts.

// template is a kind of campaign: its name pattern, objective and schedule.
// Placeholders: {cc} country, {cat} product category, {y} year, {lal} lookalike
// percentage, {mon} month and year of launch.
type template struct {
	name      string
	objective string
	// kind is "evergreen" (long-running), "test" (a few weeks) or the key of a
	// seasonal window (calendar.go).
	kind     string
	weight   float64
	retarget bool
	brand    bool
}

func tpl(name, objective, kind string, weight float64) template {
	return template{name: name, objective: objective, kind: kind, weight: weight}
}

func retarget(t template) template { t.retarget = true; return t }
func brand(t template) template    { t.brand = true; return t }

// staples are every account's first campaign: the names that recur everywhere.
var staples = map[string]template{
	metaAds:   tpl("Prospecting - {cc} - Lookalike 1%", "OUTCOME_SALES", "evergreen", 1),
	googleAds: brand(tpl("Brand Search - Exact", "SEARCH", "evergreen", 1)),
	tiktokAds: tpl("In-Feed - Conversions - Broad", "CONVERSIONS", "evergreen", 1),
	"es":      tpl("Prospección - {cc} - Lookalike 1%", "OUTCOME_SALES", "evergreen", 1),
}

var templates = map[string][]template{
	metaAds: {
		tpl("Prospecting - {cc} - Lookalike {lal}%", "OUTCOME_SALES", "evergreen", 3),
		tpl("Prospecting - Broad - Advantage+", "OUTCOME_SALES", "evergreen", 2),
		tpl("Prospecting - {cc} - Interests - {cat}", "OUTCOME_SALES", "evergreen", 3),
		tpl("Advantage+ Shopping - Evergreen", "OUTCOME_SALES", "evergreen", 1.5),
		retarget(tpl("Retargeting - Website Visitors 30d", "OUTCOME_SALES", "evergreen", 1.5)),
		retarget(tpl("Retargeting - Add to Cart 7d", "OUTCOME_SALES", "evergreen", 1.5)),
		retarget(tpl("Catalog Sales - DPA - {cat}", "OUTCOME_SALES", "evergreen", 1.5)),
		tpl("Brand Awareness - Video - {cc}", "OUTCOME_AWARENESS", "evergreen", 1),
		tpl("Reach - {cat} Launch", "OUTCOME_AWARENESS", "test", 0.6),
		tpl("Traffic - Blog Content", "OUTCOME_TRAFFIC", "evergreen", 0.8),
		tpl("Traffic - {cat} Collection", "OUTCOME_TRAFFIC", "test", 0.8),
		tpl("Engagement - Giveaway {mon}", "OUTCOME_ENGAGEMENT", "test", 0.6),
		tpl("Lead Gen - Newsletter Signup", "OUTCOME_LEADS", "evergreen", 0.6),
		tpl("Creative Test - {cat} - {mon}", "OUTCOME_SALES", "test", 3),
		tpl("UGC Creative Test - {mon}", "OUTCOME_SALES", "test", 2),
		tpl("BFCM {y} - Prospecting", "OUTCOME_SALES", "bfcm", 1.2),
		retarget(tpl("BFCM {y} - Retargeting", "OUTCOME_SALES", "bfcm", 1)),
		tpl("Holiday {y} - Gift Guide", "OUTCOME_SALES", "holiday", 1),
		tpl("Summer Sale {y}", "OUTCOME_SALES", "summer", 1),
		tpl("Valentine's Day {y}", "OUTCOME_SALES", "valentines", 0.4),
		tpl("Mother's Day {y} - {cat}", "OUTCOME_SALES", "mothers", 0.4),
		tpl("Back to School {y}", "OUTCOME_TRAFFIC", "school", 0.3),
		tpl("New Year Sale {y}", "OUTCOME_SALES", "newyear", 0.4),
		tpl("Spring Launch {y} - {cat}", "OUTCOME_SALES", "spring", 0.4),
	},
	// The Argentine account names its campaigns in Spanish, as local teams do.
	"es": {
		tpl("Prospección - {cc} - Lookalike {lal}%", "OUTCOME_SALES", "evergreen", 3),
		tpl("Prospección - Intereses - {cat}", "OUTCOME_SALES", "evergreen", 3),
		tpl("Advantage+ Shopping - Evergreen", "OUTCOME_SALES", "evergreen", 1.5),
		retarget(tpl("Remarketing - Visitantes 30d", "OUTCOME_SALES", "evergreen", 1.5)),
		retarget(tpl("Remarketing - Carrito Abandonado 7d", "OUTCOME_SALES", "evergreen", 1.5)),
		retarget(tpl("Catálogo - DPA - {cat}", "OUTCOME_SALES", "evergreen", 1.2)),
		tpl("Reconocimiento de Marca - Video", "OUTCOME_AWARENESS", "evergreen", 0.8),
		tpl("Tráfico - Blog", "OUTCOME_TRAFFIC", "evergreen", 0.6),
		tpl("Interacción - Sorteo {mon}", "OUTCOME_ENGAGEMENT", "test", 0.6),
		tpl("Test Creativo - {cat} - {mon}", "OUTCOME_SALES", "test", 3),
		tpl("Hot Sale {y}", "OUTCOME_SALES", "hotsale", 1.2),
		tpl("CyberMonday {y}", "OUTCOME_SALES", "cyberar", 1.2),
		tpl("Black Friday {y}", "OUTCOME_SALES", "bfcm", 0.6),
		tpl("Navidad {y} - Regalos", "OUTCOME_SALES", "holiday", 1),
		tpl("Día del Padre {y}", "OUTCOME_SALES", "fathers", 0.5),
	},
	googleAds: {
		brand(tpl("Brand Search - Phrase", "SEARCH", "evergreen", 0.8)),
		tpl("Non-Brand Search - {cat}", "SEARCH", "evergreen", 3),
		tpl("Non-Brand Search - {cat} - {cc}", "SEARCH", "evergreen", 2),
		tpl("Competitor Search - {cc}", "SEARCH", "evergreen", 1),
		tpl("DSA - All Pages", "SEARCH", "evergreen", 0.6),
		tpl("PMax - All Products", "PERFORMANCE_MAX", "evergreen", 1.2),
		tpl("PMax - {cat}", "PERFORMANCE_MAX", "evergreen", 2),
		tpl("PMax - Bestsellers - {cc}", "PERFORMANCE_MAX", "evergreen", 1),
		retarget(tpl("Display - Remarketing 30d", "DISPLAY", "evergreen", 1)),
		tpl("Display - Prospecting - {cat}", "DISPLAY", "test", 0.8),
		tpl("YouTube - Awareness - {cc}", "VIDEO", "evergreen", 0.8),
		tpl("YouTube - Video Action - {cat}", "VIDEO", "test", 0.6),
		tpl("Search Test - {cat} - {mon}", "SEARCH", "test", 1.5),
		tpl("BFCM {y} - Search - Sale Terms", "SEARCH", "bfcm", 1),
		tpl("PMax - BFCM {y}", "PERFORMANCE_MAX", "bfcm", 1),
		tpl("Holiday {y} - Search - Gifts", "SEARCH", "holiday", 0.8),
		tpl("Summer Sale {y} - PMax", "PERFORMANCE_MAX", "summer", 0.6),
		tpl("Back to School {y} - Search", "SEARCH", "school", 0.3),
	},
	tiktokAds: {
		tpl("Spark Ads - Creator Whitelisting", "CONVERSIONS", "evergreen", 1.5),
		tpl("Spark Ads - {cat} - {mon}", "CONVERSIONS", "test", 2),
		tpl("Smart+ - {cat}", "CONVERSIONS", "evergreen", 1),
		retarget(tpl("Retargeting - Video Viewers 15d", "CONVERSIONS", "evergreen", 0.8)),
		tpl("Traffic - Landing Page Test - {mon}", "TRAFFIC", "test", 1),
		tpl("Traffic - {cat} Collection", "TRAFFIC", "evergreen", 0.6),
		tpl("Video Views - Brand Story", "VIDEO_VIEWS", "evergreen", 0.6),
		tpl("TopView - {cat} Launch", "VIDEO_VIEWS", "test", 0.5),
		tpl("BFCM {y} - Spark Ads", "CONVERSIONS", "bfcm", 1),
		tpl("Holiday {y} - Gift Ideas", "CONVERSIONS", "holiday", 0.7),
		tpl("Summer Sale {y} - TikTok", "CONVERSIONS", "summer", 0.5),
		tpl("New Year {y} - Resolutions", "CONVERSIONS", "newyear", 0.4),
	},
}

var categories = map[string][]string{
	"outdoor":   {"Tents", "Hiking Boots", "Rain Jackets", "Backpacks", "Sleeping Bags", "Camp Kitchen"},
	"skincare":  {"Vitamin C Serum", "Sunscreen SPF 50", "Retinol Night Cream", "Moisturizer", "Cleanser", "Eye Cream"},
	"nutrition": {"Whey Protein", "Pre-Workout", "Multivitamins", "Creatine", "Protein Bars", "Greens Powder"},
	"home":      {"Sofas", "Bedding", "Lighting", "Rugs", "Dining Tables", "Outdoor Furniture"},
	"garden":    {"Plantas de Interior", "Macetas", "Sustratos", "Herramientas", "Semillas", "Riego"},
}

var (
	lookalikes = []string{"1", "1", "2", "3", "5"}
	ages       = []string{"18-24", "18-34", "25-44", "25-54", "35-54", "45-65+"}
	offers     = []string{"20% Off", "Free Shipping", "New Arrivals", "Bundle & Save", "Best Sellers", "Limited Drop"}
	creators   = []string{"alexhikes", "glowwithmia", "fitbyjordan", "homewithsam", "outdoorsy.kate", "dailyskin.lab", "coach.rina"}
	months     = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// Ad set (Google: ad group) and ad name patterns. Extra placeholders: {age},
// {offer}, {creator}, {n} (a variant number), {sec} (a video length).
var (
	adsetNames = map[string][]string{
		metaAds:           {"{cc} - {age} - Broad", "{cc} - Lookalike {lal}% - Purchasers 180d", "{cc} - Interests - {cat}", "{cc} - Advantage+ Audience", "{cc} - Engaged Shoppers"},
		"meta-rt":         {"{cc} - Website Visitors 30d", "{cc} - Add to Cart 7d", "{cc} - IG Engagers 60d", "{cc} - Past Purchasers 180d"},
		"es":              {"{cc} - {age} - Abierto", "{cc} - Lookalike {lal}% - Compradores", "{cc} - Intereses - {cat}", "{cc} - Advantage+ Audience"},
		"es-rt":           {"{cc} - Visitantes 30d", "{cc} - Carrito 7d", "{cc} - Compradores 180d"},
		"SEARCH":          {"{cat} - Exact", "{cat} - Phrase", "{cat} - Broad", "{cat} - Best", "{cat} - Near Me"},
		"brand":           {"Brand - Exact", "Brand - Phrase", "Brand + {cat}", "Brand - Misspellings"},
		"PERFORMANCE_MAX": {"Asset Group - {cat}", "Asset Group - Bestsellers", "Asset Group - {offer}"},
		"DISPLAY":         {"Remarketing - All Visitors", "In-Market - {cat}", "Custom Segment - {cat}", "Affinity - {age}"},
		"VIDEO":           {"In-Stream - {age} - {cat}", "In-Feed - {cat}", "Shorts - {cat}"},
		tiktokAds:         {"{cc} - {age} - Broad", "{cc} - Interest - {cat}", "{cc} - Custom Audience - Site Visitors", "{cc} - Lookalike - Purchasers"},
	}
	adNames = map[string][]string{
		metaAds:           {"Video - UGC Testimonial - {sec}s", "Carousel - {cat}", "Static - {offer}", "Reel - {cat} How-To", "Collection - {cat}", "Video - Founder Story", "DPA - {cat}"},
		"SEARCH":          {"RSA - {cat} - {n}", "RSA - {offer} - {n}"},
		"PERFORMANCE_MAX": {"Asset Group Ad {n}", "PMax Assets - {cat}"},
		"DISPLAY":         {"Responsive Display - {cat}", "Responsive Display - {offer}"},
		"VIDEO":           {"In-Stream - {cat} {sec}s", "Bumper - {offer} 6s"},
		tiktokAds:         {"Spark - @{creator} - {cat}", "In-Feed - {cat} Hook {n}", "UGC - {cat} Unboxing", "Green Screen - {offer}"},
	}
)

// vars are the values a name's placeholders take.
type vars struct {
	cc, cat, y, mon string
	r               *rand.Rand
}

// fill replaces placeholders; random ones ({lal}, {age}, …) are drawn from v.r.
func fill(pattern string, v vars) string {
	if !strings.Contains(pattern, "{") {
		return pattern
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		j := strings.IndexByte(pattern[i:], '}') + i
		b.WriteString(pattern[:i])
		switch pattern[i+1 : j] {
		case "cc":
			b.WriteString(v.cc)
		case "cat":
			b.WriteString(v.cat)
		case "y":
			b.WriteString(v.y)
		case "mon":
			b.WriteString(v.mon)
		case "lal":
			b.WriteString(lookalikes[v.r.IntN(len(lookalikes))])
		case "age":
			b.WriteString(ages[v.r.IntN(len(ages))])
		case "offer":
			b.WriteString(offers[v.r.IntN(len(offers))])
		case "creator":
			b.WriteString(creators[v.r.IntN(len(creators))])
		case "n":
			b.WriteString(strconv.Itoa(1 + v.r.IntN(4)))
		case "sec":
			b.WriteString(strconv.Itoa([]int{6, 10, 15, 20, 30}[v.r.IntN(5)]))
		}
		pattern = pattern[j+1:]
	}
}

// uniqueName varies a name already used in the account the ways media buyers do —
// a product category, a market, the launch month, a version number, or the
// platform's own duplicate suffix ("- Copy"; Google refuses duplicate names, so
// " #2") — so that names mostly differ but still group by their stem.
func uniqueName(name, platform string, v vars, cats []string, seen map[string]int) string {
	n := seen[name]
	seen[name]++
	if n == 0 {
		return name
	}
	dup := " - Copy"
	if platform == googleAds {
		dup = fmt.Sprintf(" #%d", n+1)
	}
	options := []string{
		" - " + cats[v.r.IntN(len(cats))],
		" - " + v.cc,
		" - " + v.mon,
		fmt.Sprintf(" - v%d", n+1),
		dup,
	}
	for _, i := range v.r.Perm(len(options)) {
		if c := name + options[i]; seen[c] == 0 && !strings.Contains(name, options[i][3:]) {
			seen[c]++
			return c
		}
	}
	for k := n + 1; ; k++ {
		if c := fmt.Sprintf("%s (%d)", name, k); seen[c] == 0 {
			seen[c]++
			return c
		}
	}
}
