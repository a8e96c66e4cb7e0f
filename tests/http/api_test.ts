import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { closedPort } from "../helpers/providers.ts";
import { fakeProviderYaml, parseSse } from "../helpers/home.ts";
import { tempApi as setup } from "../helpers/api.ts";

Deno.test("the API answers health openly and everything else only with the token", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url));
  await t.step("health needs no token", async () => {
    const response = await api.call("/api/health", { auth: false });
    assertEquals(response.status, 200);
    const body = await response.json();
    assertEquals(body.ok, true);
    assertMatch(body.version, /^\d+\.\d+\.\d+/);
  });
  await t.step("no token is 401 with a hint", async () => {
    const response = await api.call("/api/conversations", { auth: false });
    assertEquals(response.status, 401);
    assertEquals(response.headers.get("www-authenticate"), 'Bearer realm="hob"');
    const body = await response.json();
    assertEquals(body.error.code, "unauthorized");
    assertMatch(body.error.message, /Authorization: Bearer/);
  });
  await t.step("a wrong token is 401", async () => {
    const response = await api.call("/api/chat", {
      method: "POST",
      auth: false,
      headers: { authorization: "Bearer not-the-token-at-all" },
      json: { message: "hi" },
    });
    assertEquals(response.status, 401);
    await response.body?.cancel();
    assertEquals(fake.requests.length, 0);
  });
  await t.step("an unknown route is a JSON 404", async () => {
    const response = await api.call("/api/nope");
    assertEquals(response.status, 404);
    assertEquals((await response.json()).error.code, "not_found");
  });
});

Deno.test("POST /api/chat answers as JSON or as an SSE stream", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [
      { text: "Hello as JSON." },
      { tool_calls: [{ id: "call_t", name: "get_time", arguments: { timezone: "UTC" } }] },
      { text: "It is noon." },
    ],
  });
  await using api = await setup(fakeProviderYaml(fake.url));
  let conversationId = "";

  await t.step("JSON", async () => {
    const response = await api.call("/api/chat", { method: "POST", json: { message: "Hi" } });
    assertEquals(response.status, 200);
    const reply = await response.json();
    assertEquals(reply.content, "Hello as JSON.");
    assertEquals(reply.status, "complete");
    assertEquals(reply.model, "fake/fake-model");
    assertEquals(reply.usage, { input_tokens: 10, output_tokens: 5 });
    assert(typeof reply.message_id === "number");
    conversationId = reply.conversation_id;
  });

  await t.step("SSE with a tool call, continuing the conversation", async () => {
    const response = await api.call("/api/chat", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { message: "What time is it?", conversation_id: conversationId },
    });
    assertEquals(response.status, 200);
    assertEquals(response.headers.get("content-type"), "text/event-stream");
    const events = parseSse(await response.text());
    const kinds = events.map((e) => e.event);
    assertEquals(kinds[0], "start");
    assertEquals(kinds.slice(1, 3), ["tool_call", "tool_result"]);
    assert(kinds.includes("text"));
    assertEquals(kinds.at(-1), "done");
    const result = events[2].data as { name: string; content: string; is_error: boolean };
    assertEquals([result.name, result.is_error], ["get_time", false]);
    assertStringIncludes(result.content, "UTC:");
    const done = events.at(-1)!.data as {
      conversation_id: string;
      status: string;
      message_ids: number[];
    };
    assertEquals(done.conversation_id, conversationId);
    assertEquals(done.status, "complete");
    assertEquals(done.message_ids.length, 3);
    // The provider saw the first exchange as history.
    const sent = fake.requests.at(-1)!.body.messages as { role: string }[];
    assertEquals(sent.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
    ]);
  });

  await t.step("the conversation holds every message", async () => {
    const response = await api.call(`/api/conversations/${conversationId}/messages`);
    const { messages } = await response.json();
    assertEquals(
      messages.map((m: { role: string }) => m.role),
      ["user", "assistant", "user", "assistant", "tool", "assistant"],
    );
    assertEquals(messages[3].tool_calls[0].name, "get_time");
    assertEquals(messages[4].tool_call_id, "call_t");
  });
});

Deno.test("POST /api/chat reports a provider that is down", async (t) => {
  await using api = await setup(fakeProviderYaml(`http://127.0.0.1:${closedPort()}/v1`));
  await t.step("as a 502 in JSON", async () => {
    const response = await api.call("/api/chat", { method: "POST", json: { message: "hi" } });
    assertEquals(response.status, 502);
    const body = await response.json();
    assertEquals(body.error.code, "provider_unreachable");
    assertMatch(
      body.error.message,
      /provider 'fake' is not reachable at http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    assert(body.reply.conversation_id, "the caller learns the conversation that holds the message");
  });
  await t.step("as an error event in SSE", async () => {
    const response = await api.call("/api/chat", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { message: "hi" },
    });
    const events = parseSse(await response.text());
    assertEquals(events.map((e) => e.event), ["start", "error", "done"]);
    assertEquals((events[2].data as { status: string }).status, "error");
  });
});

Deno.test("a model that fails after some text is a failure on every way in, with the text kept", async (t) => {
  await using fake = startFakeOpenAI({
    fallback: { text: "Half an answer", stream_error: "the model crashed" },
  });
  await using api = await setup(fakeProviderYaml(fake.url));
  await t.step("POST /api/chat as JSON: a 502 whose reply holds the text", async () => {
    const response = await api.call("/api/chat", { method: "POST", json: { message: "hi" } });
    assertEquals(response.status, 502);
    const body = await response.json();
    assertEquals(body.error.code, "provider_error");
    assertMatch(body.error.message, /the model crashed/);
    assertEquals([body.reply.status, body.reply.content], ["error", "Half an answer"]);
  });
  await t.step("/v1 whole: a 502 in OpenAI's shape, the text beside it", async () => {
    const response = await api.call("/v1/chat/completions", {
      method: "POST",
      json: { model: "hob", messages: [{ role: "user", content: "hi" }] },
    });
    assertEquals(response.status, 502);
    const body = await response.json();
    assertEquals([body.error.type, body.error.code], ["server_error", "provider_error"]);
    assertMatch(body.error.message, /the model crashed/);
    assertEquals([body.hob.status, body.hob.content], ["error", "Half an answer"]);
  });
  await t.step("/v1 streamed: the text, then an error instead of a finish", async () => {
    const response = await api.call("/v1/chat/completions", {
      method: "POST",
      json: { model: "hob", stream: true, messages: [{ role: "user", content: "hi" }] },
    });
    const data = (await response.text()).split("\n\n").filter(Boolean)
      .map((frame) => frame.replace(/^data: /, ""));
    assertEquals(data.at(-1), "[DONE]");
    const chunks = data.slice(0, -1).map((line) => JSON.parse(line));
    const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? "").join("");
    assertEquals(text, "Half an answer");
    assertMatch(chunks.at(-1).error.message, /the model crashed/);
    assert(!chunks.some((c) => c.choices?.[0]?.finish_reason), "no chunk says it finished");
  });
});

Deno.test("the API rejects malformed requests with a 4xx naming the problem", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(fakeProviderYaml(fake.url, "server: { max_body_bytes: 2048 }"));
  const cases: [string, RequestInit & { json?: unknown }, number, string, string | undefined][] = [
    ["a missing field", { method: "POST", json: {} }, 400, "invalid_request", "message"],
    ["a wrong type", { method: "POST", json: { message: 42 } }, 400, "invalid_request", "message"],
    [
      "an empty message",
      { method: "POST", json: { message: "" } },
      400,
      "invalid_request",
      "message",
    ],
    [
      "an unknown field",
      { method: "POST", json: { message: "hi", mesage: "x" } },
      400,
      "invalid_request",
      "mesage",
    ],
    [
      "a body that is not JSON",
      {
        method: "POST",
        body: "{oops",
        headers: { "content-type": "application/json" },
      },
      400,
      "invalid_json",
      undefined,
    ],
    [
      "a body that is not declared JSON",
      { method: "POST", body: "message=hi" },
      415,
      "unsupported_media_type",
      undefined,
    ],
    [
      "a body over the limit",
      { method: "POST", json: { message: "x".repeat(5000) } },
      413,
      "payload_too_large",
      undefined,
    ],
    [
      "an unknown conversation",
      { method: "POST", json: { message: "hi", conversation_id: "missing" } },
      404,
      "not_found",
      undefined,
    ],
    [
      "a model of an unknown provider",
      { method: "POST", json: { message: "hi", model: "nowhere/x" } },
      400,
      "invalid_request",
      "model",
    ],
  ];
  for (const [name, init, status, code, field] of cases) {
    await t.step(name, async () => {
      const response = await api.call("/api/chat", init);
      assertEquals(response.status, status);
      const body = await response.json();
      assertEquals(body.error.code, code);
      assertEquals(body.error.field, field);
      assert(body.error.message.length > 0);
    });
  }
  await t.step("a bad query parameter", async () => {
    const response = await api.call("/api/conversations?limit=lots");
    assertEquals(response.status, 400);
    const body = await response.json();
    assertEquals(body.error.field, "limit");
    assertMatch(body.error.message, /^query parameter 'limit'/);
  });
  assertEquals(fake.requests.length, 0, "no bad request reached the provider");
});

Deno.test("the conversations API creates, lists, renames, switches model and deletes", async () => {
  await using fake = startFakeOpenAI({ models: ["m1", "m2"] });
  await using api = await setup(fakeProviderYaml(fake.url));
  const created =
    await (await api.call("/api/conversations", { method: "POST", json: { title: "Trip" } }))
      .json();
  assertEquals([created.title, created.model, created.message_count], ["Trip", null, 0]);

  const list = await (await api.call("/api/conversations?q=tri")).json();
  assertEquals(list.conversations.map((c: { id: string }) => c.id), [created.id]);

  const renamed = await api.call(`/api/conversations/${created.id}`, {
    method: "PATCH",
    json: { title: "Trip to Oslo" },
  });
  assertEquals((await renamed.json()).title, "Trip to Oslo");

  const switched = await api.call(`/api/conversations/${created.id}/model`, {
    method: "PUT",
    json: { model: "fake/m2" },
  });
  assertEquals((await switched.json()).model, "fake/m2");
  const badModel = await api.call(`/api/conversations/${created.id}/model`, {
    method: "PUT",
    json: { model: "m2" },
  });
  assertEquals(badModel.status, 400);
  await badModel.body?.cancel();

  await (await api.call("/api/chat", {
    method: "POST",
    json: { message: "hi", conversation_id: created.id },
  })).json();
  assertEquals(fake.requests.at(-1)!.body.model, "m2", "the conversation's model is used");

  const one = await (await api.call(`/api/conversations/${created.id}`)).json();
  assertEquals(one.message_count, 2);

  const removed = await api.call(`/api/conversations/${created.id}`, { method: "DELETE" });
  assertEquals(removed.status, 204);
  const gone = await api.call(`/api/conversations/${created.id}`);
  assertEquals(gone.status, 404);
  await gone.body?.cancel();
});

Deno.test("GET /api/models lists discovered models and provider status", async () => {
  await using fake = startFakeOpenAI({ models: ["alpha", "beta"] });
  await using api = await setup(fakeProviderYaml(fake.url));
  const body = await (await api.call("/api/models")).json();
  assertEquals(body.default, "fake/fake-model");
  const ids = body.models.map((m: { id: string }) => m.id);
  assert(ids.includes("fake/alpha") && ids.includes("fake/beta"), ids.join(","));
  const fakeStatus = body.providers.find((p: { name: string }) => p.name === "fake");
  assertEquals([fakeStatus.ok, fakeStatus.models], [true, 2]);
  const openrouter = body.providers.find((p: { name: string }) => p.name === "openrouter");
  assertEquals(openrouter.ok, false);
  assertMatch(openrouter.error, /no API key — set OPENROUTER_API_KEY/);
});
