/**
 * No raw database handle outside the stores: code in src/ reaches hob.db
 * through src/store (and the memory index through src/memory, which owns its
 * tables), never through `runtime.db` or SQL of its own. The composition root
 * (src/runtime/runtime.ts) opens the handle and hands it to the stores.
 */

import { join, relative } from "node:path";
import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SRC = join(ROOT, "src");

/** Where the handle may be held and used, by path prefix. */
const OWNERS = ["src/store/", "src/memory/", "src/runtime/runtime.ts"];

/**
 * Files the composition root hands the handle so they build their own stores
 * from it. They may name its type; they may not run SQL or reach `runtime.db`.
 * Each should take its stores instead, and leave this list.
 */
const WIRING: Record<string, string> = {
  "src/runtime/background.ts":
    "builds the job, task and notification stores and the heartbeat's kv",
  "src/runtime/toolbox.ts": "builds the approval and tool-event stores",
};

/** What gives a raw handle away, and what each pattern means. */
const RULES: { pattern: RegExp; problem: string; wiringMay?: boolean }[] = [
  { pattern: /\bruntime\.db\b/, problem: "reaches runtime.db" },
  { pattern: /\{[^}]*\bdb\b[^}]*\}\s*=\s*runtime\b/, problem: "takes db from the runtime" },
  { pattern: /\bdb\.(prepare|exec)\s*\(/, problem: "runs SQL on a handle" },
  { pattern: /\.db\.\w+/, problem: "uses a handle's methods" },
  { pattern: /from\s+["']node:sqlite["']/, problem: "imports node:sqlite", wiringMay: true },
];

/** The lines of `source` (the file at `path`, relative to the repository) that break a rule. */
export function handleProblems(path: string, source: string): string[] {
  if (OWNERS.some((owner) => path.startsWith(owner))) return [];
  const problems: string[] = [];
  source.split("\n").forEach((line, i) => {
    for (const rule of RULES) {
      if (rule.wiringMay && path in WIRING) continue;
      if (rule.pattern.test(line)) {
        problems.push(`${path}:${i + 1} ${rule.problem}: ${line.trim()}`);
      }
    }
  });
  return problems;
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("handleProblems catches a handle outside the stores", async (t) => {
  await t.step("runtime.db, SQL on a handle, a handle's methods, node:sqlite", () => {
    const source = [
      'const row = runtime.db.prepare("PRAGMA integrity_check").get();',
      "writeKv(runtime.db, KEY, value);",
      'db.exec("BEGIN IMMEDIATE");',
      "const { db } = runtime;",
      'import type { DatabaseSync } from "node:sqlite";',
    ].join("\n");
    assertEquals(handleProblems("src/cli/doctor.ts", source).map((p) => p.split(" ")[0]), [
      "src/cli/doctor.ts:1",
      "src/cli/doctor.ts:1",
      "src/cli/doctor.ts:1",
      "src/cli/doctor.ts:2",
      "src/cli/doctor.ts:3",
      "src/cli/doctor.ts:4",
      "src/cli/doctor.ts:5",
    ]);
  });
  await t.step("not in the stores, memory or the composition root", () => {
    const source = 'db.exec("BEGIN IMMEDIATE"); const x = runtime.db;';
    for (const path of ["src/store/jobs.ts", "src/memory/memory.ts", "src/runtime/runtime.ts"]) {
      assertEquals(handleProblems(path, source), []);
    }
  });
  await t.step("the wiring may name the type, but not run SQL", () => {
    assertEquals(
      handleProblems("src/runtime/toolbox.ts", 'import type { DatabaseSync } from "node:sqlite";'),
      [],
    );
    assertEquals(handleProblems("src/runtime/toolbox.ts", 'db.exec("DELETE FROM x")').length, 1);
  });
  await t.step("mentions of the file hob.db are no handle", () => {
    assertEquals(handleProblems("src/cli/worker.ts", "Claims tasks from the queue in hob.db"), []);
  });
});

Deno.test("no file in src/ holds a raw database handle outside src/store, src/memory and the wiring", async () => {
  const problems: string[] = [];
  for await (const file of sourceFiles(SRC)) {
    problems.push(...handleProblems(relative(ROOT, file), await Deno.readTextFile(file)));
  }
  assertEquals(problems, []);
});
