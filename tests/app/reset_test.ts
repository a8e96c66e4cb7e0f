/** The reset action over a real runtime in a temporary home: counted first, deleted when asked. */

import { ActionError } from "../../src/app/errors.ts";
import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

async function refusal(call: () => Promise<unknown>): Promise<ActionError> {
  const error = await assertRejects(call);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return error;
}

Deno.test("createResetActions counts first and deletes only when asked", async (t) => {
  await using env = await tempRuntime(YAML);
  const { app } = env.runtime;
  app.tasks.add({ title: "Sort photos" });
  await Deno.writeTextFile(`${env.home.home}/memory/2026-01-01.md`, "# 2026-01-01\n\nA note.\n");

  await t.step("counted, nothing deleted", async () => {
    const report = await app.reset.reset({ part: "all" });
    assertEquals([report.part, report.deleted], ["all", false]);
    const count = (what: string) => report.items.find((item) => item.what.startsWith(what))?.count;
    assertEquals(count("background tasks"), 1);
    assertEquals(count("memory files"), 2);
    assertEquals(app.tasks.list().length, 1);
  });

  await t.step("deleted with apply; MEMORY.md comes back as the template", async () => {
    const report = await app.reset.reset({ part: "memory", apply: true });
    assertEquals(report.deleted, true);
    assertEquals(await app.memory.files(), ["MEMORY.md"]);
    assertEquals(app.tasks.list().length, 1);
  });

  await t.step("an unknown part is refused", async () => {
    const refused = await refusal(() => app.reset.reset({ part: "everything" as "all" }));
    assertEquals([refused.code, refused.field], ["invalid", "part"]);
  });
});
