/**
 * The tool actions over a real runtime's toolbox (the registry, the user's
 * tools and skills, real Workers): listing, invoking as the owner, and the
 * refusals' codes.
 */

import { ActionError } from "../../src/app/errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

/** The async action's refusal: its code, field and message. */
async function refusal(fn: () => Promise<unknown>) {
  const error = await assertRejects(fn);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return { code: error.code, field: error.field, message: error.message };
}

Deno.test("createToolActions lists, gets and invokes tools as the owner", async (t) => {
  await using env = await tempRuntime(YAML);
  const { tools } = env.runtime.app;

  await t.step(
    "the listing has every tool with its policy, the skills and what was refused",
    async () => {
      const listing = await tools.list();
      assertEquals(Object.keys(listing), ["tools", "skills", "problems"]);
      const time = listing.tools.find((tool) => tool.name === "get_time");
      assertEquals(time?.policy, "allow");
      // What a command really gets: the shell allowlist runs, anything else asks.
      const command = listing.tools.find((tool) => tool.name === "run_command");
      assertEquals([command?.policy, command?.effective_policy], ["allow", "allowlist, else ask"]);
      // The skill every home starts with, and nothing refused.
      assertEquals(listing.skills.map((skill) => skill.name), ["press_release"]);
      assertEquals(listing.problems, []);
    },
  );
  await t.step("one tool by name", async () => {
    assertEquals((await tools.get({ name: "read_file" })).name, "read_file");
  });
  await t.step(
    "an invocation runs the tool; its own failure is a result, not a refusal",
    async () => {
      const result = await tools.invoke({ name: "get_time", args: { timezone: "UTC" } }, {
        source: "cli",
      });
      assertEquals(result.is_error, false);
      assertMatch(result.content, /UTC/);
      const failed = await tools.invoke({ name: "read_file", args: { path: 7 } }, {
        source: "cli",
      });
      assertEquals(failed.is_error, true);
    },
  );
  await t.step("args default to none", async () => {
    assertEquals((await tools.invoke({ name: "get_time" }, { source: "api" })).is_error, false);
  });
});

Deno.test("createToolActions refuses a tool that is not there and arguments that are no object", async () => {
  await using env = await tempRuntime(YAML);
  const { tools } = env.runtime.app;
  assertEquals(await refusal(() => tools.get({ name: "nope" })), {
    code: "not_found",
    field: "name",
    message: "No tool named 'nope'",
  });
  assertEquals(
    (await refusal(() => tools.invoke({ name: "nope", args: {} }, { source: "api" }))).code,
    "not_found",
  );
  const notAnObject = await refusal(() =>
    tools.invoke({ name: "get_time", args: [1] as unknown as Record<string, unknown> }, {
      source: "api",
    })
  );
  assertEquals([notAnObject.code, notAnObject.field], ["invalid", "args"]);
});
