package ads

import (
	"time"

	"github.com/adsmcp/adsmcp/internal/catalog"
)

// The warehouse's rows: what a source of ad data is made of, whether generated
// (the demo dataset), fetched from an ad platform's API, or imported. Loaders
// take them through a Sink.

// NotReported is the value of a measure the fact's platform does not report (link
// clicks on Google and TikTok): the warehouse stores it as NULL, not 0.
const NotReported = -1

// Campaign is one row of table campaigns.
type Campaign struct {
	CampaignID string
	AccountID  string
	Name       string
	// Objective is the platform's own value: Meta OUTCOME_*, Google's advertising
	// channel type (SEARCH, PERFORMANCE_MAX, …), TikTok's objective (CONVERSIONS, …).
	Objective string
	// Status is normalized across platforms: ACTIVE (delivering through the last
	// day of data), PAUSED (stopped recently) or ARCHIVED (stopped long ago).
	Status    string
	StartDate time.Time
	// EndDate is the last day of delivery, or a scheduled end after the data;
	// zero means no end date (NULL): an ACTIVE campaign running until stopped.
	EndDate time.Time
}

// AdSet is one row of table adsets (Google: ad group).
type AdSet struct {
	AdSetID    string
	CampaignID string
	AccountID  string
	Name       string
}

// Ad is one row of table ads.
type Ad struct {
	AdID       string
	AdSetID    string
	CampaignID string
	AccountID  string
	Name       string
}

// Fact is one row of table facts: one ad on one day in one country on one
// device, or, in a breakdown set other than delivery, one campaign on one day
// in one value of the set's breakdowns (age × gender, placement, conversion
// action).
// Empty strings are NULL (dimension artifacts, see docs/contract.md §5 step 1).
type Fact struct {
	Date              time.Time // UTC midnight of the account's civil date
	AccountID         string
	CampaignID        string
	AdSetID           string
	AdID              string
	Country           string // ISO 3166-1 alpha-2
	Device            string // mobile, desktop, tablet
	PublisherPlatform string
	// Breakdown is the catalog.BreakdownSet the row belongs to ("" is
	// catalog.Delivery: country, device, publisher_platform); a row of another
	// set carries that set's dimensions (Age and Gender, Placement,
	// ConversionAction) and sums, over them, to the delivery rows' totals.
	Breakdown        string
	Age              string // 18-24, 25-34, … (catalog "age")
	Gender           string // female, male, unknown
	Placement        string // Meta platform_position, TikTok placement
	ConversionAction string // purchase, lead, … (conversions and their value only)

	// Measures are the additive metrics, indexed by catalog.Measure, so that a new
	// metric is a catalog entry, not a new field and code path in every producer
	// and loader. Each holds a value of its column's kind (catalog.Storage):
	// money in micros of the account's currency, always whole cents (multiples of
	// 10,000); counts whole; doubles as reported (Google's conversions may be
	// fractional, but only in quarters in the demo data, which binary floating
	// point holds exactly, so sums are exact). Whole numbers are exact in a
	// float64 up to 2^53 (9e15 micros, 9 billion currency units in one row).
	// NotReported where the platform does not report the measure.
	Measures [catalog.NumMeasures]float64
}

// Reported reports whether the fact's platform reports measure m.
func (f *Fact) Reported(m catalog.Measure) bool { return f.Measures[m] != NotReported }

// Reach is one row of table reach: distinct people reached by one object (the
// account or a campaign) over one period of one grain.
type Reach struct {
	Level       string // "account" or "campaign"
	ObjectID    string // the account_id or campaign_id
	AccountID   string
	Grain       string    // "daily", "weekly", "monthly"
	PeriodStart time.Time // the day, the ISO week's Monday, or the 1st of the month
	Reach       int64
}

// Sink receives a dataset. A producer (the demo generator, a connector's batch)
// calls it from a single goroutine in this order: every Dataset row, every
// Account, every Campaign, every AdSet, every Ad (each account by account), every
// Fact (account by account, each account in date order — the physical order a
// warehouse wants for date-range scans), then every Reach row. One table at a
// time lets a loader keep a single bulk appender open. An error stops the
// producer, which returns it.
type Sink interface {
	// Dataset is one key/value row of table dataset describing the data
	// (kind, label, anchor, seed, days, scale, generator_version, first_date, last_date).
	Dataset(key, value string) error
	Account(a Account) error
	Campaign(c Campaign) error
	AdSet(s AdSet) error
	Ad(a Ad) error
	// Fact gets a pointer so the hot path does not copy; the Fact is only valid
	// during the call (its memory is reused).
	Fact(f *Fact) error
	Reach(r Reach) error
}

// FactTextColumns are the facts table's text columns, after date and before
// the measures, in the order Fact.Texts gives their values: what every loader
// writes, so a new breakdown is one entry here and one in Texts.
var FactTextColumns = [NumFactTexts]string{"account_id", "campaign_id", "adset_id", "ad_id",
	"country", "device", "publisher_platform", "breakdown", "age", "gender", "placement", "conversion_action"}

// NumFactTexts is how many text columns a fact row has.
const NumFactTexts = 12

// FactBreakdownColumn is the index in FactTextColumns of column breakdown,
// which is never NULL (every other text column is NULL when empty).
const FactBreakdownColumn = 7

// Texts are the fact's text values in FactTextColumns order; "" is NULL,
// except the breakdown, which is always its set's key.
func (f *Fact) Texts() [NumFactTexts]string {
	return [NumFactTexts]string{f.AccountID, f.CampaignID, f.AdSetID, f.AdID,
		f.Country, f.Device, f.PublisherPlatform, f.BreakdownKey(), f.Age, f.Gender, f.Placement, f.ConversionAction}
}

// BreakdownKey is the key of the row's breakdown set: Breakdown, or
// catalog.Delivery when it is empty.
func (f *Fact) BreakdownKey() string {
	if f.Breakdown == "" {
		return catalog.Delivery
	}
	return f.Breakdown
}
