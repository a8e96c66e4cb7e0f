/**
 * The hob services as declared: each with its params' schema — the app
 * action's input where the action parses them, handed on as received so it
 * is the one parser and its refusal names the field; its own where the
 * service is the only reader — over a real runtime and a real SQLite file.
 */

import { ActionError } from "../../src/app/errors.ts";
import { memoryTextInput, searchMemoryInput } from "../../src/app/memory.ts";
import { searchConversationsInput, viewConversationInput } from "../../src/inputs/conversations.ts";
import { newScheduleInput } from "../../src/inputs/schedules.ts";
import { listTasksInput, newTaskInput, taskIdInput } from "../../src/inputs/tasks.ts";
import { createServices } from "../../src/runtime/services.ts";
import type { ServiceCallContext } from "../../src/tools/registry.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

function context(conversation_id: string | null = null): ServiceCallContext {
  return { tool: "test", conversation_id, depth: 0, source: "agent" };
}

Deno.test("createServices declares each service with the schema of the action that parses its params", async (t) => {
  await using env = await tempRuntime(YAML);
  const { services } = createServices(env.runtime.agent, env.runtime.toolbox, env.runtime.app);

  await t.step("an action's input is the service's schema, the same object", () => {
    assert(services["tasks.add"].schema === newTaskInput);
    assert(services["tasks.list"].schema === listTasksInput);
    assert(services["tasks.get"].schema === taskIdInput);
    assert(services["schedule.add"].schema === newScheduleInput);
    assert(services["memory.search"].schema === searchMemoryInput);
    assert(services["memory.remember"].schema === memoryTextInput);
    assert(services["conversations.search"].schema === searchConversationsInput);
    assert(services["conversations.view"].schema === viewConversationInput);
  });

  await t.step("every service has a schema", () => {
    for (const [method, service] of Object.entries(services)) {
      assert(typeof service.schema?.safeParse === "function", `${method} has no schema`);
    }
  });

  await t.step("a refusal is the action's, naming the field as the model sent it", async () => {
    for (
      const [method, params, field] of [
        ["memory.search", { q: "  " }, "q"],
        ["memory.remember", { text: "x".repeat(10_001) }, "text"],
        ["conversations.search", { q: "tents", limit: 21 }, "limit"],
        ["conversations.view", { id: "c", before: 11 }, "before"],
        ["tasks.list", { status: "sleeping" }, "status"],
      ] as const
    ) {
      const error = await assertRejects(() => services[method](params, context()));
      assert(error instanceof ActionError, `${method}: ${error}`);
      assertEquals([error.code, error.field], ["invalid", field], method);
    }
  });
});

Deno.test("createServices' own-schema services refuse what they cannot read before running", async () => {
  await using env = await tempRuntime(YAML);
  const { services } = createServices(env.runtime.agent, env.runtime.toolbox, env.runtime.app);
  const error = await assertRejects(() => services["agent.run"]({ task: "" }, context()));
  assertMatch(String(error), /task/);
  assertEquals(
    env.runtime.conversations.listConversations({ kind: "all" }).length,
    0,
    "no sub-agent was started",
  );
});

Deno.test("conversations.view reads the message asked for more fully, by id or position, as numbers or digits", async () => {
  await using env = await tempRuntime(YAML);
  const { conversations: store } = env.runtime;
  const { services } = createServices(env.runtime.agent, env.runtime.toolbox, env.runtime.app);
  const conversation = store.createConversation({ title: "Long" });
  const long = "word ".repeat(1_000);
  for (let i = 0; i < 3; i++) {
    store.addMessage({ conversation_id: conversation.id, role: "user", content: `${i} ${long}` });
  }
  const second = store.listMessages(conversation.id)[1];
  for (
    const around of [
      { message_id: second.id },
      { message_id: String(second.id) },
      { position: 2 },
      { position: "2" },
    ]
  ) {
    const view = await services["conversations.view"](
      { id: conversation.id, ...around },
      context(),
    );
    assertEquals(
      view.messages.map((message) => message.cut > 0),
      [true, false, true],
      JSON.stringify(around),
    );
  }
});
