import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { createAnthropicProvider, toAnthropicMessages } from "../../src/llm/anthropic.ts";
import { startFakeAnthropic } from "../fakes/anthropic_server.ts";
import {
  closedPort,
  collect,
  failureOf,
  providerConfig,
  request,
  textOf,
} from "../helpers/providers.ts";
import { hobWrote } from "../../src/core/untrusted.ts";

const anthropic = (url: string, overrides = {}) =>
  createAnthropicProvider(
    providerConfig({
      name: "anthropic",
      type: "anthropic",
      base_url: url,
      api_key: "sk-ant-test",
      ...overrides,
    }),
  );

Deno.test("createAnthropicProvider streams text with usage including the cache", async () => {
  await using fake = startFakeAnthropic({
    replies: [{ text: "Hello from Claude.", cache_read: 30 }],
  });
  const events = await collect(anthropic(fake.url).stream("claude-fake-1", request()));
  assertEquals(textOf(events), "Hello from Claude.");
  assertEquals(events.at(-2), {
    type: "usage",
    usage: { input_tokens: 42, output_tokens: 7, cache_read_tokens: 30 },
  });
  assertEquals(events.at(-1), { type: "done", stop_reason: "end_turn" });
});

Deno.test("createAnthropicProvider caches the system prompt and sends tools and history in its format", async () => {
  await using fake = startFakeAnthropic();
  await collect(
    anthropic(fake.url).stream(
      "claude-fake-1",
      request({
        system: "SOUL",
        max_output_tokens: 999,
        tools: [{
          name: "get_time",
          description: "time",
          parameters: { type: "object", properties: {} },
        }],
        messages: [
          { role: "user", content: "time?" },
          {
            role: "assistant",
            content: "Checking.",
            tool_calls: [{ id: "t1", name: "get_time", arguments: '{"timezone":"UTC"}' }],
          },
          { role: "tool", tool_call_id: "t1", name: "get_time", content: hobWrote("noon") },
        ],
      }),
    ),
  );
  const sent = fake.requests[0];
  assertEquals(sent.path, "/v1/messages");
  // The SDK sends the key as a bearer token.
  assertEquals(sent.headers.authorization, "Bearer sk-ant-test");
  assertEquals(sent.body.max_tokens, 999);
  assertEquals(sent.body.system, [{
    type: "text",
    text: "SOUL",
    cache_control: { type: "ephemeral" },
  }]);
  assertEquals(sent.body.tools, [{
    name: "get_time",
    description: "time",
    input_schema: { type: "object", properties: {} },
  }]);
  assertEquals(sent.body.messages, [
    { role: "user", content: [{ type: "text", text: "time?" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "t1", name: "get_time", input: { timezone: "UTC" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "noon" }] },
  ]);
});

Deno.test("createAnthropicProvider assembles tool_use input from JSON deltas", async () => {
  await using fake = startFakeAnthropic({
    replies: [{
      tool_calls: [{ id: "toolu_1", name: "get_time", arguments: { timezone: "Asia/Tokyo" } }],
    }],
  });
  const events = await collect(anthropic(fake.url).stream("m", request()));
  assertEquals(events.flatMap((e) => (e.type === "tool_call" ? [e.call] : [])), [
    { id: "toolu_1", name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' },
  ]);
  assertEquals(events.at(-1), { type: "done", stop_reason: "tool_use" });
});

Deno.test("createAnthropicProvider turns failures into readable error events", async (t) => {
  await t.step("a 429 is retried, then succeeds", async () => {
    await using fake = startFakeAnthropic({
      replies: [{ status: 429, retry_after_ms: 10 }, { text: "ok now" }],
    });
    const events = await collect(anthropic(fake.url, { max_retries: 1 }).stream("m", request()));
    assertEquals(textOf(events), "ok now");
    assertEquals(fake.requests.length, 2);
  });
  await t.step("an overloaded error mid-stream", async () => {
    await using fake = startFakeAnthropic({
      replies: [{ text: "half", stream_error: "Overloaded" }],
    });
    const events = await collect(anthropic(fake.url).stream("m", request()));
    assertEquals(textOf(events), "half");
    assertMatch(failureOf(events.at(-1)).message, /provider 'anthropic' failed: .*Overloaded/);
  });
  await t.step("a 401 asks for the key", async () => {
    await using fake = startFakeAnthropic({
      replies: [{ status: 401, type: "authentication_error", message: "invalid x-api-key" }],
    });
    const [event] = await collect(
      anthropic(fake.url, { api_key_env: "ANTHROPIC_API_KEY" }).stream("m", request()),
    );
    assertEquals(failureOf(event).code, "auth_failed");
    assertMatch(failureOf(event).message, /invalid x-api-key — set ANTHROPIC_API_KEY/);
  });
  await t.step("a server that is down", async () => {
    const [event] = await collect(
      anthropic(`http://127.0.0.1:${closedPort()}`).stream("m", request()),
    );
    assertEquals(failureOf(event).code, "provider_unreachable");
  });
});

Deno.test("createAnthropicProvider keeps the usage counted before an error event", async () => {
  await using fake = startFakeAnthropic({
    replies: [{ text: "half", stream_error: "Overloaded", output_tokens: 9 }],
  });
  const events = await collect(anthropic(fake.url).stream("m", request()));
  assertEquals(textOf(events), "half");
  assertEquals(events.slice(-2, -1), [{
    type: "usage",
    usage: { input_tokens: 12, output_tokens: 9 },
  }]);
  assertMatch(failureOf(events.at(-1)).message, /Overloaded/);
});

Deno.test("createAnthropicProvider ends an answer that goes quiet", async (t) => {
  await t.step(
    "a stall mid-answer is an error naming the setting, with the usage so far",
    async () => {
      await using fake = startFakeAnthropic({
        replies: [{ text: Array.from({ length: 20 }, (_, i) => `t${i} `), stall: true }],
      });
      const events = await collect(
        anthropic(fake.url, { idle_timeout_ms: 1_000 }).stream("m", request()),
      );
      assertEquals(textOf(events), Array.from({ length: 20 }, (_, i) => `t${i} `).join(""));
      assertEquals(events.at(-2), { type: "usage", usage: { input_tokens: 12, output_tokens: 1 } });
      const failure = failureOf(events.at(-1));
      assertEquals(failure.code, "provider_timeout");
      assertMatch(
        failure.message,
        /provider 'anthropic' stopped sending mid-answer: nothing came for 1 s.*providers\.anthropic\.idle_timeout_ms/,
      );
    },
  );
  await t.step("ping events keep a slow answer going", async () => {
    await using fake = startFakeAnthropic({
      replies: [{ text: ["Slow ", "but ", "sure."], delay_ms: 2_000, ping_ms: 100 }],
    });
    const events = await collect(
      anthropic(fake.url, { idle_timeout_ms: 1_500 }).stream("m", request()),
    );
    assertEquals(textOf(events), "Slow but sure.");
    assertEquals(events.at(-1), { type: "done", stop_reason: "end_turn" });
  });
  await t.step("thinking keeps an answer going that shows no text for longer", async () => {
    await using fake = startFakeAnthropic({
      replies: [{
        thinking: ["Let ", "me ", "think ", "this ", "through."],
        text: ["Done."],
        delay_ms: 500,
      }],
    });
    const events = await collect(
      anthropic(fake.url, { idle_timeout_ms: 1_500 }).stream("m", request()),
    );
    assertEquals(textOf(events), "Done.");
    assertEquals(events.at(-1), { type: "done", stop_reason: "end_turn" });
  });
});

Deno.test("createAnthropicProvider lists models with the key", async () => {
  await using fake = startFakeAnthropic({ models: ["claude-a", "claude-b"] });
  const models = await anthropic(fake.url).listModels(new AbortController().signal);
  assertEquals(models.map((m) => m.id), ["anthropic/claude-a", "anthropic/claude-b"]);
  assertEquals(fake.listings[0].headers["anthropic-version"], "2023-06-01");
});

Deno.test("toAnthropicMessages merges neighbours of one role and skips empty text", () => {
  assertEquals(
    toAnthropicMessages([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "1", name: "x", arguments: "not json" }, {
          id: "2",
          name: "y",
          arguments: "{}",
        }],
      },
      { role: "tool", tool_call_id: "1", name: "x", content: hobWrote("r1"), is_error: true },
      { role: "tool", tool_call_id: "2", name: "y", content: hobWrote("r2") },
    ]),
    [
      { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "1", name: "x", input: {} },
          { type: "tool_use", id: "2", name: "y", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "1", content: "r1", is_error: true },
          { type: "tool_result", tool_use_id: "2", content: "r2" },
        ],
      },
    ],
  );
});
