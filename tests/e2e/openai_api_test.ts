/**
 * `/v1` through the official `openai` client against a real `hob serve`: a
 * streamed reply that went through one of hob's tools, client-side tools
 * round-tripped, conversations continued by their history, and errors in
 * OpenAI's shape.
 */

import OpenAI from "openai";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

type Recorded = { role: string; content: string; tool_call_id?: string }[];

Deno.test("the openai client streams a reply from /v1/chat/completions that went through a hob tool call", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      { tool_calls: [{ id: "t1", name: "get_time", arguments: { timezone: "Europe/Lisbon" } }] },
      // Apart by more than a save interval, so each piece is passed on by itself.
      { text: ["It is ", "evening ", "in Lisbon."], delay_ms: 500 },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const client = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: hob.token, maxRetries: 0 });

  const stream = await client.chat.completions.create({
    model: "hob",
    messages: [
      { role: "system", content: "Answer in one sentence." },
      { role: "user", content: "What time is it in Lisbon?" },
    ],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let finish: string | null = null;
  let usage: { total_tokens: number } | undefined;
  const deltas: string[] = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice?.delta.content) {
      text += choice.delta.content;
      deltas.push(choice.delta.content);
    }
    assertEquals(choice?.delta.tool_calls, undefined, "hob's own tool calls stay inside the turn");
    if (choice?.finish_reason) finish = choice.finish_reason;
    if (chunk.usage) usage = chunk.usage;
  }
  assertEquals(text, "It is evening in Lisbon.");
  assert(deltas.length >= 3, "the reply arrived in pieces");
  assertEquals(finish, "stop");
  assert(usage && usage.total_tokens > 0);
  // The model ran hob's get_time and saw its result; the client's system message reached it.
  const second = fake.requests[1].body.messages as Recorded;
  const toolResult = second.find((m) => m.role === "tool")!;
  assertStringIncludes(toolResult.content, "Europe/Lisbon");
  assertStringIncludes(
    (fake.requests[0].body.messages as Recorded)[0].content,
    "Answer in one sentence.",
  );
  const events = await (await hob.fetch(
    `/api/conversations/${
      (await (await hob.fetch("/api/conversations")).json()).conversations[0].id
    }/events`,
  )).json();
  assertEquals(events.events[0].tool, "get_time");
});

Deno.test("/v1: non-streaming replies, continued conversations, client tools, models and errors", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [
      { text: "Hello Ana." },
      { text: "You said your name is Ana." },
      { tool_calls: [{ id: "w1", name: "get_weather", arguments: { city: "Porto" } }] },
      { text: "It is sunny in Porto." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const client = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: hob.token, maxRetries: 0 });
  type HobReply = OpenAI.Chat.Completions.ChatCompletion & { hob: { conversation_id: string } };

  let conversation = "";
  await t.step("a client that sends the history back continues the same conversation", async () => {
    const first = await client.chat.completions.create({
      model: "hob",
      messages: [{ role: "user", content: "Hi, I'm Ana." }],
    }) as HobReply;
    assertEquals(first.choices[0].message.content, "Hello Ana.");
    assertEquals(first.object, "chat.completion");
    conversation = first.hob.conversation_id;
    const second = await client.chat.completions.create({
      model: "hob",
      messages: [
        { role: "user", content: "Hi, I'm Ana." },
        { role: "assistant", content: "Hello Ana." },
        { role: "user", content: "What's my name?" },
      ],
    }) as HobReply;
    assertEquals(second.choices[0].message.content, "You said your name is Ana.");
    assertEquals(second.hob.conversation_id, conversation);
    // The model saw the history once, not twice.
    const sent = fake.requests[1].body.messages as Recorded;
    assertEquals(sent.filter((m) => m.role === "user").length, 2);
  });

  await t.step(
    "a request's own tools come back as tool_calls, and their results finish the turn",
    async () => {
      const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{
        type: "function",
        function: {
          name: "get_weather",
          description: "The weather in a city",
          parameters: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
      }];
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
        { role: "user", content: "Weather in Porto?" },
      ];
      const asked = await client.chat.completions.create({ model: "hob", messages, tools });
      const choice = asked.choices[0];
      assertEquals(choice.finish_reason, "tool_calls");
      const call = choice.message.tool_calls![0] as {
        id: string;
        function: { name: string; arguments: string };
      };
      assertEquals(call.function.name, "get_weather");
      assertEquals(JSON.parse(call.function.arguments), { city: "Porto" });
      const offered = (fake.requests[2].body.tools as { function: { name: string } }[])
        .map((tool) => tool.function.name);
      assert(offered.includes("get_weather") && offered.includes("get_time"));

      const answered = await client.chat.completions.create({
        model: "hob",
        tools,
        messages: [
          ...messages,
          choice.message,
          { role: "tool", tool_call_id: call.id, content: "sunny, 24 °C" },
        ],
      }) as HobReply;
      assertEquals(answered.choices[0].message.content, "It is sunny in Porto.");
      assertEquals(answered.hob.conversation_id, (asked as HobReply).hob.conversation_id);
      const sent = fake.requests[3].body.messages as Recorded;
      assertEquals(sent.at(-1)!.role, "tool");
      // The client's tool ran outside hob: its result reaches the model labelled, like any tool's.
      assertEquals(
        sent.at(-1)!.content,
        '<untrusted source="get_weather (a tool of the API client)">\nsunny, 24 °C\n</untrusted>',
      );
    },
  );

  await t.step("GET /v1/models lists hob and every discovered model", async () => {
    const models = await client.models.list();
    const ids = models.data.map((m) => m.id);
    assertEquals(ids[0], "hob");
    assert(ids.includes("hob/fake/fake-model"), ids.join(", "));
  });

  await t.step("errors come in OpenAI's shape with a 4xx", async () => {
    const unknown = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
    }).catch((e) => e);
    assert(unknown instanceof OpenAI.NotFoundError);
    const bad = await fetch(`${hob.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${hob.token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "hob", messages: [{ role: "user", content: 42 }] }),
    });
    assertEquals(bad.status, 400);
    const body = await bad.json();
    assertEquals(body.error.type, "invalid_request_error");
    assertStringIncludes(body.error.param, "messages.0.content");
    const noToken = new OpenAI({ baseURL: `${hob.url}/v1`, apiKey: "wrong-token", maxRetries: 0 });
    const denied = await noToken.models.list().catch((e) => e);
    assert(denied instanceof OpenAI.AuthenticationError);
    const broken = await fetch(`${hob.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${hob.token}`, "content-type": "application/json" },
      body: "{not json",
    });
    assertEquals(broken.status, 400);
    await broken.body?.cancel();
  });
  assert(conversation);
});
