/**
 * `deno task conformance`: the official MCP conformance suite
 * (npm `@modelcontextprotocol/conformance`) against hob. Server scenarios
 * talk to `/mcp` of a real `hob serve`; client scenarios run hob's MCP client
 * (`hob mcp probe URL`) against the suite's own servers. Prints a table and
 * exits 1 when any scenario fails.
 */

import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { HOB_FLAGS, startHob } from "../tests/helpers/hob_process.ts";

/** The suite, pinned. */
export const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
export const SERVER_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];
export const CLIENT_SCENARIOS = ["initialize", "tools_call", "sse-retry"];
/** sse-retry measures reconnect timing; a busy machine can miss its window once. */
const CLIENT_ATTEMPTS = 3;

const MAIN = new URL("../main.ts", import.meta.url).pathname;

interface Outcome {
  side: "server" | "client";
  scenario: string;
  ok: boolean;
  detail: string;
}

async function suite(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CONFORMANCE, ...args],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  return { ok: output.code === 0, text };
}

function summary(text: string): string {
  const passed = /Passed: (\d+\/\d+)[^\n]*/.exec(text);
  if (passed) return passed[0];
  const failed = text.split("\n").filter((line) => /FAIL|✗|WARNING|Error/i.test(line));
  return failed.slice(0, 2).join(" | ").slice(0, 200) || (/OVERALL: \w+/.exec(text)?.[0] ?? "");
}

/** Runs every scenario; the returned list is the table. */
export async function runConformance(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const url = `${hob.url}/mcp?token=${hob.token}`;
  for (const scenario of SERVER_SCENARIOS) {
    const run = await suite(["server", "--url", url, "--scenario", scenario]);
    outcomes.push({ side: "server", scenario, ok: run.ok, detail: summary(run.text) });
    if (!run.ok) console.error(run.text);
  }

  // The command the suite runs for each client scenario; it appends the server's URL.
  const command = [Deno.execPath(), "run", ...HOB_FLAGS, MAIN, "mcp", "probe", "--home", home.home]
    .join(" ");
  for (const scenario of CLIENT_SCENARIOS) {
    let run = { ok: false, text: "" };
    for (let attempt = 1; attempt <= CLIENT_ATTEMPTS && !run.ok; attempt++) {
      run = await suite(["client", "--command", command, "--scenario", scenario]);
    }
    outcomes.push({ side: "client", scenario, ok: run.ok, detail: summary(run.text) });
    if (!run.ok) console.error(run.text);
  }
  return outcomes;
}

if (import.meta.main) {
  const outcomes = await runConformance();
  const width = Math.max(...outcomes.map((o) => o.scenario.length));
  console.log(`\nMCP conformance (${CONFORMANCE.slice(4)})\n`);
  console.log(`${"side".padEnd(7)} ${"scenario".padEnd(width)}  result  detail`);
  for (const o of outcomes) {
    console.log(
      `${o.side.padEnd(7)} ${o.scenario.padEnd(width)}  ${o.ok ? "pass  " : "FAIL  "}  ${o.detail}`,
    );
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  console.log(`\n${outcomes.length - failed} passed, ${failed} failed`);
  Deno.exit(failed === 0 ? 0 : 1);
}
