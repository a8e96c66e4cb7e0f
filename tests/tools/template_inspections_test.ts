/**
 * The example tools and skill of a new home are known without inspecting
 * them (src/tools/template_inspections.gen.ts): a new home's first chat waited
 * ~300 ms for three tool processes. What is known must be what inspecting
 * says, and only for the very bytes hob wrote.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { TEMPLATE_INSPECTIONS } from "../../src/tools/template_inspections.gen.ts";
import { inspectTemplates } from "../../scripts/template_inspections.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

/** No model is asked and no memory embedded: only the tools load. */
const YAML = fakeProviderYaml("http://127.0.0.1:9/v1", "memory: { embedder: none }\n");

/** The inspections the home's database holds: those a tool process made. */
function storedInspections(db: import("node:sqlite").DatabaseSync): string[] {
  return (db.prepare("SELECT key FROM kv WHERE key LIKE 'inspection:%' ORDER BY key").all() as {
    key: string;
  }[]).map((row) => row.key.split(":").slice(2).join(":"));
}

Deno.test("TEMPLATE_INSPECTIONS say what a tool process inspecting the templates says", async () => {
  assertEquals(
    await inspectTemplates(),
    TEMPLATE_INSPECTIONS,
    "stale: run `deno task gen:templates`",
  );
});

Deno.test("openToolbox loads a new home's example tools and skill without inspecting them", async () => {
  await using temp = await tempRuntime(YAML);
  const { toolbox, db } = temp.runtime;
  await toolbox.ready;
  const names = toolbox.registry.list().map((tool) => tool.name);
  assert(names.includes("roll_dice") && names.includes("word_count"), names.join(", "));
  assertEquals([...toolbox.workflows.keys()], ["press_release"]);
  assertEquals(toolbox.problems(), []);
  assertEquals(storedInspections(db), [], "a template was inspected in a tool process");
});

Deno.test("openToolbox inspects an example the owner changed as any other tool", async () => {
  await using temp = await tempRuntime(YAML);
  const { toolbox, db } = temp.runtime;
  await toolbox.ready;
  const file = `${temp.home.home}/tools/word_count.ts`;
  const source = await Deno.readTextFile(file);
  const changed = source.replace(/description: "[^"]*"/, 'description: "Counts, my way."');
  assert(changed !== source, "the example's description was not found to change");
  await Deno.writeTextFile(file, changed);
  await toolbox.reload();
  const tool = toolbox.registry.list().find((each) => each.name === "word_count");
  assertEquals(tool?.description, "Counts, my way.");
  const stored = storedInspections(db);
  assertEquals(stored.length, 1, stored.join(", "));
  assert(!Object.hasOwn(TEMPLATE_INSPECTIONS, stored[0]), "the changed file's key is a template's");
});

Deno.test("openToolbox holds a known example to the owner's tools.user_tools as any other", async () => {
  const yaml = fakeProviderYaml(
    "http://127.0.0.1:9/v1",
    "memory: { embedder: none }\ntools: { user_tools: { read: false } }\n",
  );
  await using temp = await tempRuntime(yaml);
  const { toolbox, db } = temp.runtime;
  await toolbox.ready;
  const names = toolbox.registry.list().map((tool) => tool.name);
  assert(names.includes("roll_dice") && !names.includes("word_count"), names.join(", "));
  const refused = toolbox.problems().map((problem) => problem.error);
  assertEquals(refused.length, 1, refused.join("\n"));
  assert(
    refused[0].startsWith("word_count.ts was not loaded: it asks for read access"),
    refused[0],
  );
  assertEquals(storedInspections(db), [], "the refusal came from the known description");
});
