/**
 * The conversation actions over a real runtime (SQLite, the provider router,
 * a turn against a scripted OpenAI-compatible server): what each returns,
 * and each refusal's code and field — before anything is stored.
 */

import type { ChatInput } from "../../src/app/conversations.ts";
import { ActionError } from "../../src/app/errors.ts";
import { collectReply } from "../../src/core/reply.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../helpers/assert.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }";

/** The action's refusal: its code and field. */
function refusal(fn: () => unknown): Pick<ActionError, "code" | "field"> {
  const error = assertThrows(fn, ActionError) as ActionError;
  return { code: error.code, field: error.field };
}

/** The async action's refusal: its code and field. */
async function asyncRefusal(
  fn: () => Promise<unknown>,
): Promise<Pick<ActionError, "code" | "field">> {
  const error = await assertRejects(fn);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return { code: error.code, field: error.field };
}

Deno.test("createConversationActions creates, lists, renames, sets the model and removes", async (t) => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url, YAML));
  const { conversations } = env.runtime.app;
  const created = conversations.create({ title: "Trip to Lisbon" });

  await t.step("a new conversation has no messages and the default model", () => {
    assertEquals([created.title, created.model, created.message_count], [
      "Trip to Lisbon",
      null,
      0,
    ]);
    assertEquals(conversations.create().title, "");
    // Trimmed as a rename is: a blank title is none, so the first turn names it.
    assertEquals(conversations.create({ title: "  Porto " }).title, "Porto");
    assertEquals(conversations.create({ title: "   " }).title, "");
  });
  await t.step("a listing finds it by its title", () => {
    assertEquals(conversations.list({ q: "lisbon" }).map((c) => c.id), [created.id]);
    assertEquals(conversations.list({ limit: "1" as unknown as number }).length, 1);
  });
  await t.step("a rename is trimmed", () => {
    assertEquals(conversations.rename({ id: created.id, title: "  Lisbon  " }).title, "Lisbon");
  });
  await t.step("the model is set, and unset with null", () => {
    assertEquals(
      conversations.setModel({ id: created.id, model: "fake/other" }).model,
      "fake/other",
    );
    assertEquals(conversations.setModel({ id: created.id, model: null }).model, null);
  });
  await t.step("removed, it is not found", () => {
    conversations.remove({ id: created.id });
    assertEquals(refusal(() => conversations.get({ id: created.id })), {
      code: "not_found",
      field: "id",
    });
  });
});

Deno.test("createConversationActions refuses bad input and conversations that are not there", async (t) => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url, YAML));
  const { conversations } = env.runtime.app;
  const { id } = conversations.create();

  for (
    const [what, fn, expected] of [
      ["a model no provider serves", () => conversations.create({ model: "nope/x" }), "model"],
      ["a model id too short", () => conversations.setModel({ id, model: "ab" }), "model"],
      ["a blank title", () => conversations.rename({ id, title: "   " }), "title"],
      [
        "a title past 200 characters",
        () => conversations.create({ title: "t".repeat(201) }),
        "title",
      ],
      ["a listing past 500", () => conversations.list({ limit: 501 }), "limit"],
      ["a kind no conversation has", () => conversations.list({ kind: "x" as "chat" }), "kind"],
      ["a page past 5000 messages", () => conversations.messages({ id, limit: 5_001 }), "limit"],
      ["a field no action takes", () => conversations.create({ owner: "me" } as object), "owner"],
    ] as const
  ) {
    await t.step(what, () => {
      assertEquals(refusal(fn), { code: "invalid", field: expected });
    });
  }
  await t.step("every action on a conversation that is not there", () => {
    for (
      const fn of [
        () => conversations.get({ id: "nope" }),
        () => conversations.messages({ id: "nope" }),
        () => conversations.rename({ id: "nope", title: "t" }),
        () => conversations.setModel({ id: "nope", model: null }),
        () => conversations.remove({ id: "nope" }),
        () => conversations.toolEvents({ id: "nope" }),
      ]
    ) {
      assertEquals(refusal(fn), { code: "not_found", field: "id" });
    }
  });
  await t.step("checkModel returns a model hob can use, and refuses one it cannot", () => {
    assertEquals(conversations.checkModel({ model: "fake/other" }), "fake/other");
    assertEquals(refusal(() => conversations.checkModel({ model: "nowhere" })), {
      code: "invalid",
      field: "model",
    });
  });
});

Deno.test("createConversationActions turn checks before it stores, then streams the turn", async (t) => {
  await using fake = startFakeOpenAI({ replies: [{ text: "Hello." }, { text: "Again." }] });
  await using env = await tempRuntime(fakeProviderYaml(fake.url, YAML));
  const { conversations } = env.runtime.app;

  await t.step("refused before anything is stored", async () => {
    for (
      const [input, expected] of [
        [{ message: "" }, { code: "invalid", field: "message" }],
        [{ message: "x".repeat(500_001) }, { code: "invalid", field: "message" }],
        [{ message: "hi", conversation_id: "nope" }, {
          code: "not_found",
          field: "conversation_id",
        }],
        [{ message: "hi", model: "nope/x" }, { code: "invalid", field: "model" }],
        [{ message: "hi", attachments: ["../hob.yaml"] }, {
          code: "invalid",
          field: "attachments.0",
        }],
      ] as const
    ) {
      const refused = await asyncRefusal(() => conversations.turn(input as ChatInput));
      assertEquals(refused, expected);
    }
    assertEquals(conversations.list({ kind: "all" }), []);
  });

  let conversationId = "";
  await t.step("a turn answers, and a second continues its conversation", async () => {
    const first = await collectReply(await conversations.turn({ message: "Hi" }));
    assertEquals([first.content, first.status], ["Hello.", "complete"]);
    conversationId = first.conversation_id;
    const second = await collectReply(
      await conversations.turn({ message: "Once more", conversation_id: conversationId }),
    );
    assertEquals([second.content, second.conversation_id], ["Again.", conversationId]);
    assertEquals(conversations.get({ id: conversationId }).message_count, 4);
  });

  await t.step("a conversation deleted after the check is refused by the stream", async () => {
    const events = await conversations.turn({ message: "Late", conversation_id: conversationId });
    conversations.remove({ id: conversationId });
    assertEquals(await asyncRefusal(() => collectReply(events)), {
      code: "not_found",
      field: "conversation_id",
    });
  });
});
