/**
 * Bad usage of every command, as a user mistypes it: unknown flags, flags
 * without values, values out of range or of the wrong kind, unknown actions,
 * empty arguments. Each must exit 2 with one line on stderr naming the
 * problem — no stack trace, nothing on stdout, nothing done.
 */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { type HobResult, runHob } from "../helpers/hob_process.ts";

/** hob processes at once: each is a `deno run`. */
const CONCURRENCY = 4;

/** Runs every argument list, a few at a time; results in order. */
async function runAll(cases: string[][], env: Record<string, string>): Promise<HobResult[]> {
  const results: HobResult[] = new Array(cases.length);
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runHob(cases[index], { env, stdin: "" });
    }
  }));
  return results;
}

/** Exit 2, one line on stderr (matching `expected` when given), no trace, no output. */
function assertUsage(args: string[], result: HobResult, expected?: string | RegExp): void {
  const label = `hob ${args.join(" ")}`;
  assertEquals(result.code, 2, `${label}: exit ${result.code}, stderr ${result.stderr}`);
  assertMatch(result.stderr, /^[^\n]+\n$/, `${label}: not one line: ${result.stderr}`);
  assert(!/\bat .+:\d+:\d+/.test(result.stderr), `${label}: a stack trace: ${result.stderr}`);
  assertEquals(result.stdout, "", `${label}: printed ${result.stdout}`);
  if (typeof expected === "string") assertEquals(result.stderr, expected, label);
  else if (expected) assertMatch(result.stderr, expected, label);
}

Deno.test("every command hob --help lists rejects an unknown flag and an empty --home with exit 2", async () => {
  await using home = await tempHome("");
  const help = await runHob(["--help"]);
  const commands = [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((match) => match[1]);
  assert(commands.length >= 16, `commands listed: ${commands.join(", ")}`);
  const cases = commands.flatMap((command) => [
    [command, "--no-such-flag"],
    [command, "--home", ""],
  ]);
  const results = await runAll(cases, { HOB_HOME: home.home });
  commands.forEach((command, i) => {
    assertUsage(cases[2 * i], results[2 * i], `hob ${command}: unknown option '--no-such-flag'\n`);
    assertUsage(
      cases[2 * i + 1],
      results[2 * i + 1],
      `hob ${command}: option '--home' needs a value\n`,
    );
  });
});

Deno.test("hob commands reject bad values, unknown actions and empty arguments with exit 2", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  const cases: [string[], string | RegExp][] = [
    // Numbers: not numbers, negative, out of range.
    [["serve", "--port", "-1", ...h], "--port must be an integer from 0 to 65535: got '-1'\n"],
    [
      ["serve", "--port", "70000", ...h],
      "--port must be an integer from 0 to 65535: got '70000'\n",
    ],
    [["serve", "--port", "1e3", ...h], "--port must be an integer from 0 to 65535: got '1e3'\n"],
    [["serve", "--port", "", ...h], "hob serve: option '--port' needs a value\n"],
    [["serve", "--host", "bad host", ...h], /^--host must be a host name or an IP address/],
    [["serve", "--host", "999.1.1.1", ...h], /^--host must be a host name or an IP address/],
    [["memory", "search", "tea", "--limit", "-5", ...h], /^--limit must be an integer from 1 /],
    [["memory", "search", "tea", "--limit", "0", ...h], /^--limit must be an integer from 1 /],
    [["memory", "search", "tea", "--limit=abc", ...h], /^--limit must be an integer from 1 /],
    [["memory", "get", "MEMORY.md", "--from", "0", ...h], /^--from must be an integer/],
    [["memory", "get", "MEMORY.md", "--lines", "99999", ...h], /^--lines must be an integer/],
    [["cron", "runs", "1", "--limit", "-1", ...h], /^--limit must be an integer from 1 /],
    [["task", "list", "--limit", "0", ...h], /^--limit must be an integer from 1 /],
    [["task", "add", "t", "--priority", "high", ...h], /^--priority must be an integer/],
    [["task", "add", "t", "--priority", "1e30", ...h], /^--priority must be an integer/],
    [["task", "add", "t", "--blocked-by", "x", ...h], /^--blocked-by takes task ids/],
    [["task", "list", "--status", "done", ...h], /^--status must be one of /],
    [["cron", "add", "x", "0 9 * * *", "p", "--missed", "never", ...h], /^--missed must be/],
    // Values that name nothing hob can use.
    [["ask", "--model", "nope/x", "hi", ...h], /^hob ask: --model: model 'nope\/x'/],
    [["chat", "--model", "no-slash", ...h], /^hob chat: --model: model 'no-slash'/],
    [["tool", "call", "get_time", "--args", "{", ...h], /^hob tool call: --args must be/],
    [["tool", "call", "get_time", "--args", "[1]", ...h], /^hob tool call: --args must be/],
    [["mcp", "probe", "not a url", ...h], /^hob mcp probe: 'not a url' is not a URL/],
    // Unknown commands and actions.
    [["frobnicate"], "hob: unknown command 'frobnicate' — see 'hob --help'\n"],
    [["help", "frobnicate"], "hob: unknown command 'frobnicate' — see 'hob --help'\n"],
    [["--home"], "hob: option '--home' needs a value\n"],
    [["memory", "frob", ...h], /^hob memory: unknown action 'frob'/],
    [["tool", "frob", ...h], /^hob tool: unknown action 'frob'/],
    [["mcp", "frob", ...h], /^hob mcp: unknown action 'frob'/],
    [["approvals", "frob", ...h], /^hob approvals: unknown action 'frob'/],
    [["cron", "frob", ...h], /^hob cron: unknown action 'frob'/],
    [["task", "frob", ...h], /^hob task: unknown action 'frob'/],
    [["config", "frob", ...h], /^hob config: unknown action 'frob'/],
    [["reset", "frob", ...h], /^hob reset: unknown part 'frob'/],
    // Missing and empty arguments.
    [["approvals", "approve", ...h], /^hob approvals approve: missing the approval's id/],
    [["memory", "search", "", ...h], /^hob memory search: missing argument/],
    [["memory", "remember", "  ", ...h], /^hob memory remember: missing argument/],
    [["task", "add", "", ...h], /^hob task add: needs a TITLE/],
    [["cron", "add", "x", "0 9 * * *", "", ...h], /^hob cron add: needs NAME, SCHEDULE and PROMPT/],
    [["cron", "run", "", ...h], /^hob cron run: needs the job's id or name/],
    [["worker", "--once=yes", ...h], "hob worker: option '--once' does not take a value\n"],
    [
      ["status", "extra", ...h],
      "hob status: unexpected argument 'extra' — see 'hob status --help'\n",
    ],
  ];
  const results = await runAll(cases.map(([args]) => args), {});
  cases.forEach(([args, expected], i) => assertUsage(args, results[i], expected));
  // Nothing was done: no task, no job, no memory written.
  const tasks = await runHob(["task", "list", "--json", ...h]);
  assertEquals(JSON.parse(tasks.stdout).tasks, []);
  const jobs = await runHob(["cron", "list", "--json", ...h]);
  assertEquals(JSON.parse(jobs.stdout).jobs, []);
});
