package readme

// How a README command is checked.
type kind int

const (
	// run: as written, in order; it must exit 0.
	run kind = iota
	// httpServer: as written but on port 0 (a busy 8080 on the test machine
	// must not fail it); the test waits for the address it prints, checks
	// /healthz and lists the tools over MCP, then stops it with SIGTERM.
	httpServer
	// claudeAdd: needs Claude Code. What it registers, the command after "--",
	// is started as Claude Code would start it (stdio), and must list the tools.
	claudeAdd
	// inspectorCLI: needs Node 22.19+ and the Inspector; run with the Inspector
	// .ci/setup-clients installs (the version pinned in test/clients) in place
	// of npx's download.
	inspectorCLI
	// liveAPIs: needs real ad-platform credentials; run as written, with the
	// README's adsmcp.yaml pointed at the local API fakes.
	liveAPIs
	// background: a program that serves until stopped (the API fakes): started
	// as written, the test waits for the line saying it serves, leaves it
	// running for the commands after it, and stops it at the end as Ctrl-C
	// does, when it must exit 0.
	background
	// notRun: cannot run here; why says why and what checks it instead.
	notRun
)

// A class is how one command is checked and why.
type class struct {
	kind kind
	why  string
}

// commands classifies every command in the README's ```sh blocks, by its text
// with line continuations joined.
var commands = map[string]class{
	"go run ./cmd/adsmcp query --platform meta_ads --metric spend,clicks,ctr --dimension account_name --preset last_30d": {run,
		"the first run: builds adsmcp and fills the default warehouse"},
	"go test ./...": {notRun,
		"the suite this test belongs to (running it here would recurse); .ci/run runs it as written"},
	"go build -o adsmcp ./cmd/adsmcp && ./adsmcp accounts": {run,
		"builds the binary the following commands use"},
	`claude mcp add adsmcp -- "$PWD/adsmcp" serve`: {claudeAdd,
		"needs Claude Code; the server it registers must answer over stdio"},
	"./adsmcp serve --http 127.0.0.1:8080      # MCP endpoint http://127.0.0.1:8080/mcp, health /healthz": {httpServer,
		"starts a server that runs until stopped"},
	"npx @modelcontextprotocol/inspector --cli ./adsmcp serve --method tools/list": {inspectorCLI,
		"needs Node 22.19+ and the Inspector"},
	"npx @modelcontextprotocol/inspector ./adsmcp serve        # web UI": {notRun,
		"opens the Inspector's web UI in a browser and runs until stopped; the --cli line above starts the same server the same way"},
	"./adsmcp accounts --config adsmcp.yaml          # check: lists every account the credentials reach": {liveAPIs,
		"needs Meta and Google Ads credentials"},
	"./adsmcp sync --config adsmcp.yaml              # a summary per account; exit status 1 if one failed": {notRun,
		"needs ad-platform credentials, and data on today's dates (the fakes' data ends on a fixed day); cmd/adsmcp's TestSyncThenQueryAnswersAsLive runs sync over the fakes with a fixed today"},
	"./adsmcp query --db ~/.local/share/adsmcp/synced.duckdb -m spend,conversions -d account_name --preset last_7d": {notRun,
		"queries the file the sync line above writes; TestSyncThenQueryAnswersAsLive queries a synced file the same way"},
	`claude mcp add adsmcp -- "$PWD/adsmcp" serve --config "$PWD/adsmcp.yaml"`: {claudeAdd,
		"needs Claude Code (and credentials: the README's adsmcp.yaml points at the API fakes)"},
	"go run ./test/fakeapis -config fakes.yaml": {background,
		"the API fakes: serve until stopped, for the two commands after it"},
	"go run ./cmd/adsmcp accounts --config fakes.yaml": {run, "reads the three fakes"},
	"go run ./cmd/adsmcp query --config fakes.yaml -p tiktok_ads -m spend,clicks,conversions -d campaign_name --preset last_7d": {run,
		"reads the TikTok fake"},
	"go run ./cmd/adsmcp query -m spend,ctr,cpa -d campaign_name -g weekly --account act_1015823746512093 --preset last_90d --filter 'spend > 1000' --sort spend:desc --limit 20": {run, ""},
	"go run ./cmd/adsmcp query -p meta_ads -m spend,clicks -d campaign_name -g daily --preset last_90d --client claude-code":                                                      {run, ""},
	"go run ./cmd/adsmcp query -p meta_ads -m spend,clicks -d campaign_name -g daily --preset last_90d --budget 3000":                                                             {run, ""},
	`go run ./cmd/adsmcp query --json '{"metrics":["spend","conversions"],"dimensions":["account_name"],"platforms":["meta_ads"],"date_preset":"last_month"}'`:                    {run, ""},
}
