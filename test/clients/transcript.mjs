#!/usr/bin/env node
// Records docs/transcript.md: a session of the official TypeScript SDK client,
// named claude-code, with `adsmcp serve` over stdio — the tool calls an assistant
// makes for two questions, and the answers exactly as the server sends them (long
// CSV shortened in the transcript only, and said so).
//
//   node transcript.mjs /path/to/adsmcp serve --db FILE > ../../docs/transcript.md
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "claude-code", version: "2.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));

const out = [];
const p = (s = "") => out.push(s);
const server = client.getServerVersion();
p("# A recorded session");
p();
p("Recorded with `test/clients/transcript.mjs`: the official MCP TypeScript SDK client,");
p("announcing itself as `claude-code` (so the 25,000-token budget of Claude Code applies),");
p(`talking to \`adsmcp serve\` (${server.name} ${server.version}) over stdio on a fresh demo warehouse.`);
p("The user's questions and the tool calls are what an assistant sends for them; the");
p("answers are the server's, byte for byte, except that CSV longer than 12 lines is");
p("shortened here (marked `…`). Regenerate it with the command at the top of the script.");
p();

const tools = await client.listTools();
p("## initialize, tools/list");
p();
p("Tools: " + tools.tools.map((t) => `\`${t.name}\``).join(", ") + ". Server instructions (first paragraph):");
p();
p("> " + (client.getInstructions() || "").split("\n\n")[0]);
p();

function show(text) {
  const lines = text.trimEnd().split("\n");
  if (lines.length <= 12) return lines.join("\n");
  return lines.slice(0, 10).join("\n") + `\n… ${lines.length - 10} more lines in the real answer`;
}

async function turn(question, name, toolArgs, note) {
  if (question) {
    p(`## "${question}"`);
    p();
  }
  p(`**tools/call \`${name}\`**`);
  p();
  p("```json");
  p(JSON.stringify(toolArgs));
  p("```");
  p();
  const res = await client.callTool({ name, arguments: toolArgs });
  p(`**answer** (${res.isError ? "isError" : "ok"}, ${res.content.length} text block${res.content.length > 1 ? "s" : ""}, ${res.content.reduce((n, c) => n + c.text.length, 0)} characters)`);
  p();
  for (const c of res.content) {
    const json = c.text.startsWith("{");
    p(json ? "```json" : "```csv");
    p(json ? c.text : show(c.text));
    p("```");
    p();
  }
  if (note) {
    p(note);
    p();
  }
  return res;
}

await turn("How much did I spend on Meta Ads this month?", "query",
  { metrics: ["spend"], dimensions: ["account_name"], platforms: ["meta_ads"], date_preset: "this_month" },
  "The accounts use three currencies, so adsmcp added a `currency` column rather than let anyone add dollars to pesos; the assistant reports a total per currency.");

await turn("Show me daily campaign performance for last quarter", "query",
  { metrics: ["spend", "impressions", "clicks", "ctr", "conversions", "roas"], dimensions: ["campaign_name"], time_granularity: "daily", date_preset: "last_quarter", platforms: ["meta_ads"] },
  "Daily rows for every campaign over a quarter do not fit Claude Code's budget; `_meta.optimizations_applied` says the same complete data came back at a coarser grain, and the assistant says so instead of presenting it as daily.");

await turn("And across all my accounts?", "query",
  { metrics: ["spend"], date_preset: "this_month" },
  "All 14 demo accounts are more than one query may span (10): the error lists the accounts to choose from, and the assistant asks again per platform.");

await client.close();
process.stdout.write(out.join("\n"));
