/**
 * "I saved it" must be true: the phrasings recognised as a claim (and those
 * that are not), and the turn that claims a save without a memory tool —
 * taken back and nudged once, only when memory tools were offered, never
 * after a save that happened — against a scripted model and a real SQLite
 * store, and end to end against the fake OpenAI server with the real
 * remember_this writing MEMORY.md.
 */

import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { type AgentDeps, runTurn } from "../../src/core/agent.ts";
import { collectReply } from "../../src/core/reply.ts";
import { claimsSaving } from "../../src/core/save_claim.ts";
import type { LlmPort } from "../../src/core/ports.ts";
import type { AgentEvent } from "../../src/core/types.ts";
import { fakeGetTime, type FakeTool, fakeTools } from "../fakes/tools.ts";
import { scriptedLlm, textReply, toolReply } from "../fakes/scripted_llm.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";
import { tempStore } from "../helpers/store.ts";
import type { SqliteConversationStore } from "../../src/store/conversations.ts";

const NOON = new Date("2026-11-22T12:00:00Z");

Deno.test("claimsSaving recognises a claim to have saved, and nothing else", async (t) => {
  await t.step("claims and promises", () => {
    for (
      const text of [
        "I've saved that.",
        "I've saved",
        "Got it, I'll remember that.",
        "I will remember that you take your tea without sugar.",
        "Noted!",
        "Got it, noted.",
        "Noted: your dentist is on Friday.",
        "I have made a note of it.",
        "I've made a note.",
        "Saved to memory.",
        "Done — saved.",
        "I've added that to your memory.",
        "I’ve stored it in my notes for later.",
        "Sure! I'll keep that in mind.",
        "Your sister lives in Lisbon. I've noted that.",
        "I've saved your birthday.",
        "That's saved to MEMORY.md now.",
        "I'll make a note of your allergy.",
      ]
    ) assert(claimsSaving(text), text);
  });
  await t.step("not a recall, a denial, a question or an offer", () => {
    for (
      const text of [
        "I don't remember that.",
        "I do not remember you telling me.",
        "I remember you said Lisbon.",
        "Should I save that to memory?",
        "Do you want me to remember that?",
        "If you like, I'll remember it.",
        "I can save that to memory if you want.",
        "It wasn't saved to memory.",
        "Nothing was saved to memory.",
        "I haven't saved anything.",
        "I've saved the file to workspace/plan.txt.",
        "I've written it in notes.txt.",
        "I've added the numbers: 5.",
        "As noted above, the train leaves at nine.",
        "The time is noon.",
        "",
      ]
    ) assert(!claimsSaving(text), text);
  });
});

/** A remember_this that records what it was asked to keep. */
function fakeRemember(saved: string[], failing = false): FakeTool {
  return {
    spec: {
      name: "remember_this",
      description: "Save a fact to MEMORY.md.",
      category: "memory",
      parameters: { type: "object", properties: { text: { type: "string" } } },
    },
    run: (args) => {
      if (failing) return { content: "the memory file is locked", is_error: true };
      saved.push(String(args.text));
      return { content: "Remembered.", is_error: false };
    },
  };
}

function deps(store: SqliteConversationStore, llm: LlmPort, tools: FakeTool[]): AgentDeps {
  return {
    llm,
    store,
    tools: fakeTools(...tools),
    prompt: {
      identity: () => Promise.resolve({ soul: "I am hob.", user: "" }),
      memoryContext: () => Promise.resolve(""),
    },
    clock: { now: () => NOON },
    settings: {
      defaultModel: "fake/default",
      maxToolIterations: 10,
      contextTokens: 32_000,
      maxOutputTokens: 1_000,
      maxHistoryMessages: 200,
      draftSaveIntervalMs: 250,
    },
  };
}

async function run(d: AgentDeps, message: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runTurn(d, { message })) events.push(event);
  return events;
}

const nudges = (events: AgentEvent[]) =>
  events.filter((event) => event.type === "notice" && event.code === "unsaved_claim");

Deno.test("runTurn nudges an answer that claims a save no memory tool made, once", async (t) => {
  await t.step(
    "taken back, nudged, saved; the stored conversation keeps the true answer",
    async () => {
      using s = tempStore();
      const saved: string[] = [];
      const llm = scriptedLlm([
        textReply("Got it, I'll remember that."),
        toolReply({ name: "remember_this", arguments: { text: "Ada's locker is 12" } }),
        textReply("Saved: your locker is 12."),
      ]);
      const events = await run(deps(s.store, llm, [fakeRemember(saved)]), "My locker is 12");
      assertEquals(saved, ["Ada's locker is 12"]);
      assertEquals(nudges(events).length, 1);
      const nudge = llm.requests[1].messages.at(-1)!;
      assertEquals(nudge.role, "user");
      assertStringIncludes(nudge.content, "[hob, not the user]");
      assertStringIncludes(nudge.content, "call remember_this now");
      assertEquals(llm.requests[1].messages.at(-2)?.content, "Got it, I'll remember that.");

      const reply = await collectReply((async function* () {
        yield* events;
      })());
      assertEquals(reply.content, "Saved: your locker is 12.");
      const start = events[0];
      assert(start.type === "start");
      const stored = s.store.listMessages(start.conversation_id);
      assertEquals(
        stored.map((m) => [m.role, m.content]),
        [
          ["user", "My locker is 12"],
          ["assistant", ""],
          ["assistant", ""],
          ["tool", "Remembered."],
          ["assistant", "Saved: your locker is 12."],
        ],
        "the claim keeps no text, and no nudge is stored as the user's words",
      );
    },
  );
  await t.step("at most once: a second claim stands", async () => {
    using s = tempStore();
    const llm = scriptedLlm([textReply("Noted!"), textReply("I've saved it.")]);
    const events = await run(deps(s.store, llm, [fakeRemember([])]), "Remember my locker");
    assertEquals(nudges(events).length, 1);
    assertEquals(llm.requests.length, 2);
    const done = events.at(-1);
    assert(done?.type === "done");
    assertEquals(done.status, "complete");
    // The claim taken back is not part of the reply a channel or `hob ask` gets.
    const reply = await collectReply((async function* () {
      yield* events;
    })());
    assertEquals(reply.content, "I've saved it.");
  });
  await t.step("a save that failed is no save: nudged", async () => {
    using s = tempStore();
    const llm = scriptedLlm([
      toolReply({ name: "remember_this", arguments: { text: "x" } }),
      textReply("I've saved that."),
      textReply("Sorry, saving failed: the memory file is locked."),
    ]);
    const events = await run(deps(s.store, llm, [fakeRemember([], true)]), "Remember x");
    assertEquals(nudges(events).length, 1);
  });
});

Deno.test("runTurn does not nudge a true claim, a claim without memory tools, or no claim", async (t) => {
  await t.step("the tool was called and succeeded", async () => {
    using s = tempStore();
    const saved: string[] = [];
    const llm = scriptedLlm([
      toolReply({ name: "remember_this", arguments: { text: "tea, no sugar" } }),
      textReply("I've saved that."),
    ]);
    const events = await run(deps(s.store, llm, [fakeRemember(saved)]), "I take tea, no sugar");
    assertEquals(nudges(events), []);
    assertEquals(llm.requests.length, 2);
    assertEquals(saved, ["tea, no sugar"]);
  });
  await t.step("no memory tool was offered", async () => {
    using s = tempStore();
    const llm = scriptedLlm([textReply("I'll remember that.")]);
    const events = await run(deps(s.store, llm, [fakeGetTime(NOON)]), "Remember my locker");
    assertEquals(nudges(events), []);
    assertEquals(llm.requests.length, 1);
  });
  await t.step("a question about saving", async () => {
    using s = tempStore();
    const llm = scriptedLlm([textReply("I don't remember that. Should I save it?")]);
    const events = await run(deps(s.store, llm, [fakeRemember([])]), "What's my locker?");
    assertEquals(nudges(events), []);
    assertEquals(llm.requests.length, 1);
  });
});

Deno.test("a claimed save is made real: the nudged model calls remember_this and MEMORY.md has it", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  fake.enqueue(
    { text: "I've added that to your memory." },
    {
      tool_calls: [{ name: "remember_this", arguments: { text: "Ada's bike lock code is 3141" } }],
    },
    { text: "Saved: your bike lock code is 3141." },
  );
  const reply = await collectReply(
    env.runtime.turn({ message: "My bike lock code is 3141, remember it" }),
  );
  assertEquals(reply.tool_calls.map((call) => [call.name, call.is_error]), [
    ["remember_this", false],
  ]);
  assertEquals(reply.content, "Saved: your bike lock code is 3141.");
  assert(reply.notices.some((notice) => notice.code === "unsaved_claim"));
  const nudged = fake.requests.filter((r) => r.path === "/v1/chat/completions")[1].body
    .messages as { role: string; content: string }[];
  assertStringIncludes(nudged.at(-1)!.content, "[hob, not the user]");
  const memory = await Deno.readTextFile(`${env.home.home}/memory/MEMORY.md`);
  assertStringIncludes(memory, "Ada's bike lock code is 3141");
});
