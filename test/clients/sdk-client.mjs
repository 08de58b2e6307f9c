#!/usr/bin/env node
// A real MCP client (the official TypeScript SDK) exercising adsmcp the way an AI
// assistant would, for cmd/adsmcp/clients_test.go. It prints one JSON document on
// stdout describing what it saw; the Go test makes the assertions.
//
//   node sdk-client.mjs [--name CLIENT] [--end YYYY-MM-DD] --url http://127.0.0.1:PORT/mcp
//   node sdk-client.mjs [--name CLIENT] [--end YYYY-MM-DD] -- /path/to/adsmcp serve --db FILE
//
// --name is clientInfo.name (it picks the server's token budget). --end replaces
// the date presets by date ranges ending that day, for warehouses whose data ends
// at a fixed date (the server's presets follow the clock).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function parseArgs(argv) {
  const o = { name: "sdk-client", command: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") { o.command = argv.slice(i + 1); break; }
    if (!["--name", "--url", "--end"].includes(a) || i + 1 >= argv.length) {
      throw new Error(`unknown or incomplete argument ${a}`);
    }
    o[a.slice(2)] = argv[++i];
  }
  if (!o.url && o.command.length === 0) throw new Error("give --url or -- COMMAND ARGS");
  return o;
}

const opts = parseArgs(process.argv.slice(2));

// when: the preset, or the same number of days ending at --end.
function when(days, preset) {
  if (!opts.end) return { date_preset: preset };
  const start = new Date(Date.parse(opts.end + "T00:00:00Z") - (days - 1) * 86400e3);
  return { date_range: { start: start.toISOString().slice(0, 10), end: opts.end } };
}

const calls = {
  list_accounts: ["list_accounts", {}],
  list_fields: ["list_fields", {}],
  small: ["query", { metrics: ["spend", "clicks", "ctr"], dimensions: ["account_name"], platforms: ["meta_ads"], ...when(30, "last_30d") }],
  // No account_ids and no platform: every account, more than the 10-account guardrail.
  too_many: ["query", { metrics: ["spend"], ...when(30, "last_30d") }],
  invalid: ["query", { metrics: ["spnd"], platforms: ["meta_ads"], time_granularity: "hourly" }],
  // Daily rows per campaign over 90 days: large enough that small budgets must coarsen.
  big: ["query", { metrics: ["spend", "clicks", "ctr"], dimensions: ["campaign_name"], platforms: ["meta_ads"], time_granularity: "daily", ...when(90, "last_90d") }],
  // Period over period: the 28 days before, joined row by row.
  compare: ["query", { metrics: ["spend", "ctr"], dimensions: ["account_name"], platforms: ["meta_ads"], compare: "previous_period", ...when(28, "last_28d") }],
  // A breakdown set (age × gender) and the definitions of its conversions.
  breakdown: ["query", { metrics: ["spend", "conversions"], dimensions: ["age", "gender"], platforms: ["meta_ads"], ...when(28, "last_28d") }],
};

const transport = opts.url
  ? new StreamableHTTPClientTransport(new URL(opts.url))
  : new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: "inherit" });
const client = new Client({ name: opts.name, version: "1.0.0" });
await client.connect(transport);

const out = {
  client: opts.name,
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions_length: (client.getInstructions() || "").length,
  tools: [],
  calls: {},
};
const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, annotations: t.annotations || null }));

for (const [key, [tool, args]] of Object.entries(calls)) {
  const res = await client.callTool({ name: tool, arguments: args });
  const texts = (res.content || []).filter((b) => b.type === "text").map((b) => b.text);
  let first = null;
  try { first = JSON.parse(texts[0]); } catch { /* a non-JSON first block is reported as null */ }
  out.calls[key] = {
    isError: res.isError === true,
    blocks: texts.length,
    text_lengths: texts.map((t) => t.length),
    // The first block without its bulky members: type, detail, problems, max,
    // requested, accounts (for errors) and _meta (with a comparison's windows)
    // are what the test checks.
    first: first && Object.fromEntries(Object.entries(first).filter(([k]) => k !== "summary" && k !== "requery_instructions")),
    csv_header: texts.length > 1 ? texts[1].split("\n", 1)[0] : null,
  };
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
