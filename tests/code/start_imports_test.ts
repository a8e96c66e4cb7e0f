/**
 * What each way of starting hob loads before it can answer: the static import
 * graph (Deno's own, from `deno info`), without the `import()`s that load
 * later. A command loads only its own module; `--version` and `--help` load no
 * npm package and no Node module; `hob serve` listens before it loads the
 * runtime, the API and the page; opening a home loads no tool module and no
 * action only a request needs. The `hob` task loads `import()`s when they
 * run, not all at start.
 */

import { HOB_FLAGS } from "../helpers/hob_process.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { staticGraph } from "../helpers/graph.ts";

function outside(graph: string[]): string[] {
  return graph.filter((module) => /^(npm|node):/.test(module));
}

Deno.test("the hob task loads import() when it runs, not at start", () => {
  // Without it, Deno loads every statically analysable import() before main.ts runs.
  assert(HOB_FLAGS.includes("--unstable-lazy-dynamic-imports"), HOB_FLAGS.join(" "));
});

Deno.test("src/cli/main.ts loads no command, no npm package and no Node module", async () => {
  const graph = await staticGraph("src/cli/main.ts");
  assertEquals(outside(graph), []);
  assertEquals(
    graph.filter((module) => module.startsWith("src/") && !module.startsWith("src/cli/")),
    [
      "src/version.ts",
    ],
  );
  assertEquals(graph.filter((module) => module.startsWith("src/cli/")), [
    "src/cli/commands.ts",
    "src/cli/exit.ts",
    "src/cli/main.ts",
    "src/cli/output.ts",
  ]);
});

Deno.test("src/cli/serve.ts listens before it loads the runtime, the API and the page", async () => {
  const graph = await staticGraph("src/cli/serve.ts");
  for (const later of ["src/runtime/runtime.ts", "src/http/api.ts", "src/page/routes.ts"]) {
    assert(!graph.includes(later), `${later} is loaded before hob serve listens`);
  }
  // hob.yaml says where to listen (its parser and schema load only when it changed); the gate
  // answers health with no framework, so no npm package loads before hob serve listens.
  const packages = outside(graph).filter((module) => module.startsWith("npm:"));
  assertEquals(packages, []);
});

Deno.test("src/runtime/runtime.ts loads no tool module until a tool is needed", async () => {
  const graph = await staticGraph("src/runtime/runtime.ts");
  // Of the built-ins it loads only the names of the sandbox's entry modules, two URLs.
  const tools = graph.filter((module) =>
    (module.startsWith("src/builtins/") && module !== "src/builtins/sandbox_entries.ts") ||
    module.startsWith("src/tools/web/") || module.startsWith("src/shell/")
  );
  assertEquals(tools, []);
});

Deno.test("src/runtime/runtime.ts loads the actions someone asks for when they are asked for", async () => {
  // Reports, file versions, sources, voice, reset, conversation search and hob.yaml's schema (~15 ms)
  // are needed by no start and no plain chat turn; each loads with its first call.
  const graph = await staticGraph("src/runtime/runtime.ts");
  const later = [
    "src/app/conversation_search.ts",
    "src/app/memory_sources.ts",
    "src/app/memory_versions.ts",
    "src/app/reset.ts",
    "src/app/speech.ts",
    "src/app/usage.ts",
    "src/config/schema.ts",
    "src/memory/documents.ts",
    "src/memory/sources.ts",
  ];
  assertEquals(later.filter((module) => graph.includes(module)), []);
});

Deno.test("status, cron list and tool list ask a running hob serve without an npm package", async () => {
  // zod (~25 ms) and croner (~15 ms) load only when a command opens the home or checks a new job.
  // Deno's Node layer (node:util's parseArgs) and fetch stay: together they cost 25–29 ms, less
  // than the 50 ms a fast path must save (bench/RESULTS.md, "Fast paths kept and removed").
  for (const command of ["src/cli/status.ts", "src/cli/cron.ts", "src/cli/tool.ts"]) {
    const packages = outside(await staticGraph(command)).filter((module) =>
      module.startsWith("npm:")
    );
    assertEquals(packages, [], command);
  }
});

Deno.test("src/runtime/runtime.ts loads no channel's library until the channel starts", async () => {
  // grammy, the mail libraries, matrix-js-sdk and marked load with a configured channel's first use.
  // stemmer (one file of ~10 KB, no dependencies) stems the words of memory search's passages.
  const packages = outside(await staticGraph("src/runtime/runtime.ts"))
    .filter((module) => module.startsWith("npm:"))
    .map((module) => /^npm:\/?(@?[^@]+)@/.exec(module)![1]);
  assertEquals([...new Set(packages)].sort(), ["croner", "stemmer", "zod"]);
});

Deno.test("src/http/api.ts loads no SDK and no channel library", async () => {
  // Every route module loads with the API (lazy route groups saved under 50 ms: bench/RESULTS.md,
  // "Fast paths kept and removed"); the MCP SDK, the model SDKs and the channels' libraries load
  // with their first use.
  const packages = outside(await staticGraph("src/http/api.ts"))
    .filter((module) => module.startsWith("npm:"))
    .map((module) => /^npm:\/?(@?[^@]+)@/.exec(module)![1]);
  assertEquals([...new Set(packages)].sort(), ["croner", "hono", "stemmer", "zod"]);
});
