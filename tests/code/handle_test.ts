/**
 * One handle for the ways in: HTTP, the page, the CLI's commands, MCP, `/v1`,
 * the channels and the tool services hold a `Hob` (src/app/hob.ts) — the
 * application's actions and a lifecycle — never the runtime that wires it.
 * Only the composition root holds a `Runtime`: src/runtime itself, and the
 * commands that run a process of hob's (`hob serve`, `hob worker`) with the
 * one function that opens it for them (src/cli/open.ts). This test fails when
 * any other file of src/ names the type.
 */

import { join, relative } from "node:path";
import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The files that may hold the runtime whole, besides those under src/runtime/. */
const COMPOSITION_ROOT = new Set(["src/cli/open.ts", "src/cli/serve.ts", "src/cli/worker.ts"]);

/** The lines of `source` that name the `Runtime` type (an import of it, a parameter, a field). */
export function runtimeHolds(path: string, source: string): string[] {
  if (path.startsWith("src/runtime/") || COMPOSITION_ROOT.has(path)) return [];
  const found: string[] = [];
  source.split("\n").forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    if (/^\s*\*/.test(code)) return;
    if (/\bRuntime\b/.test(code)) found.push(`${path}:${i + 1}: ${line.trim()}`);
  });
  return found;
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

Deno.test("runtimeHolds finds the runtime named outside the composition root, and only there", () => {
  const route = 'import type { Runtime } from "../runtime/runtime.ts";\n' +
    "export function routes(runtime: Runtime) {}";
  assertEquals(runtimeHolds("src/http/tools.ts", route).length, 2);
  assertEquals(runtimeHolds("src/cli/task.ts", "function show(hob: Runtime) {}").length, 1);
  assertEquals(runtimeHolds("src/page/routes.ts", "function page(hob: Hob) {}"), []);
  assertEquals(runtimeHolds("src/http/api.ts", " * the runtime's Runtime, in prose"), []);
  assertEquals(runtimeHolds("src/cli/serve.ts", route), []);
  assertEquals(runtimeHolds("src/runtime/status.ts", route), []);
});

Deno.test("no way in holds the runtime: every file outside the composition root holds a Hob", async () => {
  const found: string[] = [];
  for await (const file of sourceFiles(join(ROOT, "src"))) {
    found.push(...runtimeHolds(relative(ROOT, file), await Deno.readTextFile(file)));
  }
  assertEquals(found, []);
});
