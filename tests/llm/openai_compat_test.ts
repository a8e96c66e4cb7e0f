import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { createOpenAiCompatProvider } from "../../src/llm/openai_compat.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import {
  closedPort,
  collect,
  failureOf,
  providerConfig,
  request,
  textOf,
} from "../helpers/providers.ts";
import { hobWrote } from "../../src/core/untrusted.ts";

const getTimeSpec = {
  name: "get_time",
  description: "Get the time",
  parameters: { type: "object", properties: { timezone: { type: "string" } } },
};

Deno.test("createOpenAiCompatProvider streams text, usage and done", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ text: "Hello there, friend.", usage: { prompt_tokens: 21, completion_tokens: 4 } }],
  });
  const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
  const events = await collect(provider.stream("fake-model", request()));
  assertEquals(textOf(events), "Hello there, friend.");
  assert(events.filter((e) => e.type === "text").length >= 3, "text arrives in chunks");
  assertEquals(events.find((e) => e.type === "usage"), {
    type: "usage",
    usage: { input_tokens: 21, output_tokens: 4 },
  });
  assertEquals(events.at(-1), { type: "done", stop_reason: "stop" });
});

Deno.test("createOpenAiCompatProvider sends the Chat Completions wire format", async () => {
  await using fake = startFakeOpenAI();
  const provider = createOpenAiCompatProvider(
    providerConfig({ base_url: fake.url, api_key: "sk-test", headers: { "x-extra": "1" } }),
  );
  await collect(provider.stream(
    "some-model",
    request({
      tools: [getTimeSpec],
      messages: [
        { role: "user", content: "time?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", name: "get_time", arguments: "{}" }],
        },
        { role: "tool", tool_call_id: "c1", name: "get_time", content: hobWrote("noon") },
      ],
    }),
  ));
  const sent = fake.requests[0];
  assertEquals(sent.headers.authorization, "Bearer sk-test");
  assertEquals(sent.headers["x-extra"], "1");
  assertEquals(sent.body.model, "some-model");
  assertEquals(sent.body.stream, true);
  assertEquals(sent.body.stream_options, { include_usage: true });
  assertEquals(sent.body.messages, [
    { role: "system", content: "You are a test." },
    { role: "user", content: "time?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "get_time", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", content: "noon" },
  ]);
  assertEquals(sent.body.tools, [{
    type: "function",
    function: { name: "get_time", description: "Get the time", parameters: getTimeSpec.parameters },
  }]);
});

Deno.test("createOpenAiCompatProvider assembles streamed tool calls from fragments", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      text: "Let me check.",
      tool_calls: [
        { id: "call_a", name: "get_time", arguments: { timezone: "Europe/Berlin" } },
        { id: "call_b", name: "get_time", arguments: { timezone: "Asia/Tokyo" } },
      ],
    }],
  });
  const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
  const events = await collect(provider.stream("m", request({ tools: [getTimeSpec] })));
  assertEquals(textOf(events), "Let me check.");
  const calls = events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
  assertEquals(calls, [
    { id: "call_a", name: "get_time", arguments: '{"timezone":"Europe/Berlin"}' },
    { id: "call_b", name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' },
  ]);
  assertEquals(events.at(-1), { type: "done", stop_reason: "tool_calls" });
});

Deno.test("createOpenAiCompatProvider retries 429 and 5xx with backoff", async (t) => {
  await t.step("a 429 then a 503 then success", async () => {
    await using fake = startFakeOpenAI({
      replies: [
        { status: 429, retry_after_ms: 20 },
        { status: 503, retry_after_ms: 20 },
        { text: "finally" },
      ],
    });
    const provider = createOpenAiCompatProvider(
      providerConfig({ base_url: fake.url, max_retries: 2 }),
    );
    const events = await collect(provider.stream("m", request()));
    assertEquals(textOf(events), "finally");
    assertEquals(fake.requests.length, 3);
  });
  await t.step("retries exhausted on 429 give a rate_limited error", async () => {
    await using fake = startFakeOpenAI({ fallback: { status: 429, retry_after_ms: 10 } });
    const provider = createOpenAiCompatProvider(
      providerConfig({ base_url: fake.url, max_retries: 1 }),
    );
    const events = await collect(provider.stream("m", request()));
    assertEquals(fake.requests.length, 2);
    const failure = failureOf(events.at(-1));
    assertEquals(failure.code, "rate_limited");
    assertMatch(failure.message, /provider 'fake' is rate limiting requests \(429\)/);
  });
});

Deno.test("createOpenAiCompatProvider turns failures into readable error events", async (t) => {
  await t.step("a 500 names the provider and the status", async () => {
    await using fake = startFakeOpenAI({ replies: [{ status: 500, message: "model crashed" }] });
    const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
    const events = await collect(provider.stream("m", request()));
    assertEquals(events.length, 1);
    const failure = failureOf(events[0]);
    assertEquals(failure.code, "provider_error");
    assertMatch(failure.message, /provider 'fake' failed with 500: model crashed/);
  });
  await t.step("a 401 says which key to set", async () => {
    await using fake = startFakeOpenAI({ replies: [{ status: 401, message: "bad key" }] });
    const provider = createOpenAiCompatProvider(
      providerConfig({ name: "openrouter", base_url: fake.url, api_key_env: "OPENROUTER_API_KEY" }),
    );
    const [event] = await collect(provider.stream("m", request()));
    assertEquals(failureOf(event).code, "auth_failed");
    assertMatch(failureOf(event).message, /rejected the API key \(401\).*set OPENROUTER_API_KEY/);
  });
  await t.step("a 404 points at hob models", async () => {
    await using fake = startFakeOpenAI({
      replies: [{ status: 404, message: "model 'x' not found" }],
    });
    const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
    const [event] = await collect(provider.stream("x", request()));
    assertEquals(failureOf(event).code, "model_not_found");
    assertMatch(failureOf(event).message, /hob models/);
  });
  await t.step("a server that is down is unreachable, with a hint", async () => {
    const base = `http://127.0.0.1:${closedPort()}/v1`;
    const provider = createOpenAiCompatProvider(providerConfig({ name: "ollama", base_url: base }));
    const [event] = await collect(provider.stream("llama3.2", request()));
    assertEquals(failureOf(event).code, "provider_unreachable");
    assertEquals(
      failureOf(event).message,
      `provider 'ollama' is not reachable at ${base} — is \`ollama serve\` running?`,
    );
  });
  await t.step("an error inside the stream ends it with an error event", async () => {
    await using fake = startFakeOpenAI({
      replies: [{ text: "partial ", stream_error: "overloaded" }],
    });
    const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
    const events = await collect(provider.stream("m", request()));
    assertEquals(textOf(events), "partial ");
    assertMatch(failureOf(events.at(-1)).message, /overloaded/);
  });
});

Deno.test("createOpenAiCompatProvider stops promptly when aborted", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ text: Array.from({ length: 50 }, (_, i) => `w${i} `), delay_ms: 20 }],
  });
  const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
  const controller = new AbortController();
  const events = [];
  const started = Date.now();
  for await (const event of provider.stream("m", request({ signal: controller.signal }))) {
    events.push(event);
    if (events.length === 3) controller.abort();
  }
  assert(Date.now() - started < 900, "did not wait for the whole slow stream");
  assert(!events.some((e) => e.type === "error" || e.type === "done"), JSON.stringify(events));
});

Deno.test("createOpenAiCompatProvider lists models", async (t) => {
  await using fake = startFakeOpenAI({ models: ["alpha", "beta"] });
  await t.step("from /v1/models", async () => {
    const provider = createOpenAiCompatProvider(
      providerConfig({ name: "lmstudio", base_url: fake.url }),
    );
    const models = await provider.listModels(new AbortController().signal);
    assertEquals(models.map((m) => m.id), ["lmstudio/alpha", "lmstudio/beta"]);
    assertEquals(fake.listings.at(-1)!.path, "/v1/models");
  });
  await t.step("from Ollama's /api/tags", async () => {
    const provider = createOpenAiCompatProvider(
      providerConfig({ name: "ollama", base_url: fake.url }),
    );
    const models = await provider.listModels(new AbortController().signal);
    assertEquals(models.map((m) => m.id), ["ollama/alpha", "ollama/beta"]);
    assertEquals(fake.listings.at(-1)!.path, "/api/tags");
  });
  await t.step("a server that is down is an error naming the URL", async () => {
    const base = `http://127.0.0.1:${closedPort()}/v1`;
    const provider = createOpenAiCompatProvider(providerConfig({ base_url: base }));
    let message = "";
    await provider.listModels(new AbortController().signal).catch((e) => message = e.message);
    assertEquals(message, `not reachable at ${base}/models`);
  });
});

Deno.test("createOpenAiCompatProvider ends an answer that goes quiet", async (t) => {
  await t.step(
    "a stall mid-answer is an error naming the setting, after the text so far",
    async () => {
      await using fake = startFakeOpenAI({
        replies: [{ text: Array.from({ length: 20 }, (_, i) => `t${i} `), stall: true }],
      });
      const provider = createOpenAiCompatProvider(
        providerConfig({ base_url: fake.url, idle_timeout_ms: 1_000 }),
      );
      const events = await collect(provider.stream("m", request()));
      assertEquals(textOf(events), Array.from({ length: 20 }, (_, i) => `t${i} `).join(""));
      const failure = failureOf(events.at(-1));
      assertEquals(failure.code, "provider_timeout");
      assertMatch(
        failure.message,
        /provider 'fake' stopped sending mid-answer: nothing came for 1 s.*raise providers\.fake\.idle_timeout_ms/,
      );
    },
  );
  await t.step("keep-alive comments keep a slow answer going", async () => {
    // Each pause is longer than the idle timeout, but filled with keep-alives.
    await using fake = startFakeOpenAI({
      replies: [{ text: ["Slow ", "but ", "sure."], delay_ms: 2_000, keep_alive_ms: 100 }],
    });
    const provider = createOpenAiCompatProvider(
      providerConfig({ base_url: fake.url, idle_timeout_ms: 1_500 }),
    );
    const events = await collect(provider.stream("m", request()));
    assertEquals(textOf(events), "Slow but sure.");
    assertEquals(events.at(-1), { type: "done", stop_reason: "stop" });
  });
  await t.step("reasoning keeps an answer going that shows no text for longer", async () => {
    await using fake = startFakeOpenAI({
      replies: [{
        reasoning: ["Let ", "me ", "think ", "this ", "through."],
        text: ["Done."],
        delay_ms: 500,
      }],
    });
    const provider = createOpenAiCompatProvider(
      providerConfig({ base_url: fake.url, idle_timeout_ms: 1_500 }),
    );
    const events = await collect(provider.stream("m", request()));
    assertEquals(textOf(events), "Done.");
    assertEquals(events.at(-1), { type: "done", stop_reason: "stop" });
  });
});

Deno.test("createOpenAiCompatProvider keeps the usage an error chunk carries", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      text: "partial ",
      stream_error: "upstream died",
      usage: { prompt_tokens: 30, completion_tokens: 2 },
    }],
  });
  const provider = createOpenAiCompatProvider(providerConfig({ base_url: fake.url }));
  const events = await collect(provider.stream("m", request()));
  assertEquals(textOf(events), "partial ");
  assertEquals(events.filter((e) => e.type === "usage"), [{
    type: "usage",
    usage: { input_tokens: 30, output_tokens: 2 },
  }]);
  assertMatch(failureOf(events.at(-1)).message, /provider 'fake' failed: upstream died/);
});
