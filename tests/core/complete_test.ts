/** completeText: one answer from the model, collected, against a scripted LlmPort. */

import { completeText } from "../../src/core/complete.ts";
import type { LlmPort } from "../../src/core/ports.ts";
import type { LlmEvent } from "../../src/core/types.ts";
import { assertEquals, assertRejects } from "../helpers/assert.ts";
import { scriptedLlm, textReply, toolReply } from "../fakes/scripted_llm.ts";

const ASK = { model: "fake/model", system: "Be brief.", prompt: "Hi?" };

Deno.test("completeText joins the text deltas and sends the request", async (t) => {
  await t.step("a string prompt is one user message, with no tools", async () => {
    const llm = scriptedLlm([textReply("Hel", "lo", "!")]);
    const completion = await completeText(llm, { ...ASK, maxOutputTokens: 24 });
    assertEquals(completion, { text: "Hello!", toolCalls: [], error: null });
    assertEquals(llm.requests[0], {
      model: "fake/model",
      system: "Be brief.",
      messages: [{ role: "user", content: "Hi?" }],
      tools: [],
      max_output_tokens: 24,
      signal: undefined,
    });
  });
  await t.step("images go with the prompt; no max tokens leaves the provider's", async () => {
    const llm = scriptedLlm([textReply("red")]);
    const images = [{ media_type: "image/png", data: "iVBO" }];
    await completeText(llm, { ...ASK, images });
    assertEquals(llm.requests[0].messages, [{ role: "user", content: "Hi?", images }]);
    assertEquals("max_output_tokens" in llm.requests[0], false);
  });
  await t.step("a conversation prompt is sent as it is, with the tools", async () => {
    const llm = scriptedLlm([textReply("ok")]);
    const prompt = [
      { role: "user" as const, content: "a" },
      { role: "assistant" as const, content: "b" },
      { role: "user" as const, content: "c" },
    ];
    const tools = [{ name: "get_time", description: "The time", parameters: {} }];
    await completeText(llm, { ...ASK, prompt, tools });
    assertEquals(llm.requests[0].messages, prompt);
    assertEquals(llm.requests[0].tools, tools);
  });
});

Deno.test("completeText collects the tool calls in order", async () => {
  const llm = scriptedLlm([toolReply({ name: "a", id: "1" }, { name: "b", id: "2" })]);
  const { toolCalls, error } = await completeText(llm, ASK);
  assertEquals(toolCalls.map((call) => [call.id, call.name]), [["1", "a"], ["2", "b"]]);
  assertEquals(error, null);
});

Deno.test("completeText stops at an error event and returns it with what came before", async () => {
  const failure = { code: "rate_limited", message: "wait a moment" };
  const llm = scriptedLlm([[
    { type: "text", text: "par" },
    { type: "error", error: failure },
    { type: "text", text: "never read" },
  ]]);
  assertEquals(await completeText(llm, ASK), { text: "par", toolCalls: [], error: failure });
});

Deno.test("completeText passes the signal on and keeps what came before an abort", async () => {
  const controller = new AbortController();
  const llm = {
    async *stream(request): AsyncGenerator<LlmEvent> {
      yield { type: "text", text: "first" };
      controller.abort();
      if (request.signal?.aborted) return;
      yield { type: "text", text: "second" };
    },
  } satisfies LlmPort;
  const completion = await completeText(llm, { ...ASK, signal: controller.signal });
  assertEquals(completion, { text: "first", toolCalls: [], error: null });
});

Deno.test("completeText lets what the stream throws through", async () => {
  const llm = {
    // deno-lint-ignore require-yield
    async *stream(): AsyncGenerator<LlmEvent> {
      throw new Error("broken adapter");
    },
  } satisfies LlmPort;
  const error = await assertRejects(() => completeText(llm, ASK));
  assertEquals(error.message, "broken adapter");
});
