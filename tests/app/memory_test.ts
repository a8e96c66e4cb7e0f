/**
 * The memory actions over a real runtime in a temporary home: what each
 * returns, and each refusal as an ActionError naming its field.
 */

import { ActionError } from "../../src/app/errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";
import type { WrittenBy } from "../../src/store/versions.ts";

const BY: WrittenBy = { author: "owner", via: "test" };

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

async function refusal(call: () => Promise<unknown>): Promise<ActionError> {
  const error = await assertRejects(call);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return error;
}

Deno.test("createMemoryActions writes, reads, searches and reindexes memory", async (t) => {
  await using env = await tempRuntime(YAML);
  const memory = env.runtime.app.memory;

  await t.step("writes return the path they wrote", async () => {
    assertEquals(await memory.remember({ text: " Ada prefers green tea. " }, BY), "MEMORY.md");
    assertEquals(await memory.log({ text: "Called the plumber" }, BY), memory.todayPath());
    assertMatch(memory.todayPath(), /^\d{4}-\d\d-\d\d\.md$/);
    assertEquals(
      await memory.writeSection({ section: "Plans", content: "Tulips" }, BY),
      "MEMORY.md",
    );
    assertEquals(
      await memory.replace({ path: "notes/garden.md", content: "# Garden\n\nDig.\n" }, BY),
      "notes/garden.md",
    );
    assertEquals(await memory.files(), ["MEMORY.md", "notes/garden.md", memory.todayPath()].sort());
  });

  await t.step("reads lines of a file; `memory/` in front is allowed", async () => {
    const excerpt = await memory.read({ path: "memory/notes/garden.md", from: 3 });
    assertEquals([excerpt.path, excerpt.from, excerpt.text.trim()], ["notes/garden.md", 3, "Dig."]);
  });

  await t.step("a search says what it looked for, with which embedder", async () => {
    const found = await memory.search({ q: "  green tea ", limit: "2" });
    assertEquals([found.query, found.embedder], ["green tea", null]);
    assertEquals(found.hits[0].path, "MEMORY.md");
  });

  await t.step("reindex and stats count the same files", async () => {
    const result = await memory.reindex();
    const stats = await memory.stats();
    assertEquals(result.files, stats.files);
    assertEquals(stats.files, 3);
  });

  await t.step("refusals name the field", async () => {
    const cases: [() => Promise<unknown>, string, string | undefined][] = [
      [() => memory.search({ q: " " }), "invalid", "q"],
      [() => memory.search({ q: "tea", mode: "fuzzy" as "hybrid" }), "invalid", "mode"],
      [() => memory.read({ path: "MEMORY.md", lines: 5_001 }), "invalid", "lines"],
      [() => memory.read({ path: "../token" }), "invalid", "path"],
      [() => memory.read({ path: "nope.md" }), "invalid", "path"],
      [() => memory.replace({ path: "notes.txt", content: "x" }, BY), "invalid", "path"],
      [() => memory.remember({ text: "x".repeat(10_001) }, BY), "invalid", "text"],
      [() => memory.writeSection({ section: "A\nB", content: "x" }, BY), "invalid", undefined],
    ];
    for (const [call, code, field] of cases) {
      const error = await refusal(call);
      assertEquals([error.code, error.field], [code, field], error.message);
    }
    const missing = await refusal(() => memory.read({ path: "nope.md" }));
    assertEquals(missing.message, "Path 'nope.md' does not exist");
  });
});
