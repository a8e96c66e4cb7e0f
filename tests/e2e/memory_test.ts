/** Memory as a user meets it: `hob serve` as a subprocess, the fake model, USE-lite, real files. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, parseSse, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

const json = { "content-type": "application/json" };

Deno.test("a fact the model remembers is in the next conversation's prompt and found by paraphrase", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          name: "remember_this",
          arguments: { text: "The user's sister Grace lives in Lisbon." },
        }],
      },
      { text: "I'll remember that." },
      // A new conversation: the model searches with other words.
      {
        tool_calls: [{
          id: "s1",
          name: "search_memory",
          arguments: { query: "in which city does my sibling reside" },
        }],
      },
      { text: "She lives in Lisbon." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  await using hob = await startHob(home.home);
  const first = await (await hob.fetch("/api/chat", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ message: "My sister Grace lives in Lisbon, please remember that." }),
  })).json();
  assertEquals(first.tool_calls[0].result, "Remembered in memory/MEMORY.md.");
  assertStringIncludes(
    await Deno.readTextFile(`${home.home}/memory/MEMORY.md`),
    "The user's sister Grace lives in Lisbon.",
  );

  const second = await (await hob.fetch("/api/chat", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ message: "Where does Grace live?" }),
  })).json();
  assertEquals(second.content, "She lives in Lisbon.");
  assert(second.conversation_id !== first.conversation_id);
  const system = (fake.requests[2].body.messages as { role: string; content: string }[])[0];
  assertEquals(system.role, "system");
  assertMatch(
    system.content,
    /## Long-term memory \(MEMORY\.md, lines \d+-\d+\)[\s\S]*The user's sister Grace lives in Lisbon\./,
  );
  // The search shares no word with the fact: it was found by meaning.
  const found = second.tool_calls[0].result as string;
  assertMatch(found, /^1\. memory\/MEMORY\.md:\d+-\d+/);
  assertStringIncludes(found, "Grace lives in Lisbon");
});

Deno.test("a fact written into MEMORY.md with an editor while hob runs is found within seconds", async () => {
  await using home = await tempHome(fakeProviderYaml("http://127.0.0.1:9/v1"));
  await using hob = await startHob(home.home);
  await (await hob.fetch("/api/memory/stats")).body?.cancel();
  const file = `${home.home}/memory/MEMORY.md`;
  // As vim does: write a new file and rename it over the old one.
  await Deno.writeTextFile(
    `${file}.swp`,
    `${await Deno.readTextFile(file)}\n- The boiler service is due in March.\n`,
  );
  await Deno.rename(`${file}.swp`, file);
  const started = Date.now();
  let hits: { path: string; snippet: string }[] = [];
  while (hits.length === 0 && Date.now() - started < 10_000) {
    await new Promise((r) => setTimeout(r, 200));
    hits =
      (await (await hob.fetch("/api/memory/search?q=boiler%20service&mode=keyword")).json()).hits;
  }
  assertEquals(hits[0]?.path, "MEMORY.md", `not found within 10 s`);
  assertStringIncludes(hits[0].snippet, "boiler service is due in March");
});

Deno.test("ten concurrent remember calls through the API leave ten entries", async () => {
  await using home = await tempHome(fakeProviderYaml("http://127.0.0.1:9/v1"));
  await using hob = await startHob(home.home);
  const responses = await Promise.all(
    Array.from(
      { length: 10 },
      (_, i) =>
        hob.fetch("/api/memory/remember", {
          method: "POST",
          headers: json,
          body: JSON.stringify({ text: `Concurrent fact ${i}` }),
        }),
    ),
  );
  for (const response of responses) {
    assertEquals(response.status, 201);
    await response.body?.cancel();
  }
  const text = await Deno.readTextFile(`${home.home}/memory/MEMORY.md`);
  for (let i = 0; i < 10; i++) assertStringIncludes(text, `Concurrent fact ${i}\n`);
  const bad = await hob.fetch("/api/memory/remember", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ text: "" }),
  });
  assertEquals(bad.status, 400);
  assertEquals((await bad.json()).error.field, "text");
});

Deno.test("auto-flush summarises a long conversation into today's log and keeps the next prompt small", async () => {
  const long = "The garden plan keeps growing. ".repeat(40);
  await using fake = startFakeOpenAI({ fallback: { text: `Noted. ${long}` } });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    "memory: { flush: { threshold_tokens: 2000, keep_messages: 4 } }\nagent: { context_tokens: 8000, max_output_tokens: 500 }",
  ));
  await using hob = await startHob(home.home);
  let conversation: string | undefined;
  let flushed: { event: string; data: unknown }[] = [];
  for (let i = 0; i < 8 && flushed.length === 0; i++) {
    const before = fake.requests.length;
    const isFlushTurn = i >= 3;
    if (isFlushTurn) {
      fake.enqueue({ text: `Answer ${i}` }, { text: "DONE" }, {
        text: "- We planned the garden: tomatoes, beans.\n- Open: buy seeds.",
      });
    }
    const response = await hob.fetch("/api/chat", {
      method: "POST",
      headers: { ...json, accept: "text/event-stream" },
      body: JSON.stringify({ message: `Turn ${i}. ${long}`, conversation_id: conversation }),
    });
    const events = parseSse(await response.text());
    conversation ??= (events[0].data as { conversation_id: string }).conversation_id;
    flushed = events.filter((e) =>
      e.event === "notice" && (e.data as { code: string }).code === "memory_flushed"
    );
    if (isFlushTurn && flushed.length === 0) fake.requests.splice(before); // unused replies stay queued; fine
  }
  assertEquals(flushed.length, 1, "a flush happened");
  const today = new Date();
  const name = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, "0")}-${
    String(today.getDate()).padStart(2, "0")
  }.md`;
  const log = await Deno.readTextFile(`${home.home}/memory/${name}`);
  assertMatch(log, /## \d\d:\d\d Summary of "Turn 0\. The garden plan/);
  assertStringIncludes(log, "- We planned the garden: tomatoes, beans.");

  fake.enqueue({ text: "Fine." });
  await (await hob.fetch("/api/chat", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ message: "What is still open?", conversation_id: conversation }),
  })).json();
  const request = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
  assertStringIncludes(request[0].content, "# Earlier in this conversation (summarised)");
  const tokens = request.reduce((n, m) => n + m.content.length, 0) / 4;
  assert(tokens < 8000 - 500, `the prompt is ${tokens} tokens`);
  const { messages } = await (await hob.fetch(`/api/conversations/${conversation}/messages`))
    .json();
  assert(messages.length > request.length, "the stored conversation keeps every message");
});
