/** `hob serve` as a subprocess, over real HTTP, against fake providers — as a user runs it. */

import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, parseSse, tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";
import { openDatabase, SCHEMA_VERSION } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";

interface Message {
  role: string;
  content: string;
  status: string;
  tool_calls: { name: string }[] | null;
  tool_call_id: string | null;
}

Deno.test("hob serve streams a chat with a tool call and keeps it across a restart", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          id: "call_clock",
          name: "get_time",
          arguments: { timezone: "Europe/Oslo" },
        }],
      },
      { text: "It is time for lunch in Oslo." },
    ],
  });
  await using home = await tempHome(fakeProviderYaml(fake.url));

  let conversationId = "";
  {
    await using hob = await startHob(home.home);
    const response = await hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "What time is it in Oslo?" }),
    });
    const events = parseSse(await response.text());
    assertEquals(events.map((e) => e.event).filter((e) => e !== "text"), [
      "start",
      "tool_call",
      "tool_result",
      "title",
      "done",
    ]);
    // The model named the conversation while it replied (the fake names it by its first line).
    assertEquals((events.at(-2)!.data as { title: string }).title, "What time is it in Oslo?");
    assertEquals(fake.titleRequests.length, 1);
    const text = events.filter((e) => e.event === "text").map((e) =>
      (e.data as { text: string }).text
    ).join("");
    assertEquals(text, "It is time for lunch in Oslo.");
    assertStringIncludes((events[2].data as { content: string }).content, "(Europe/Oslo)");
    conversationId = (events[0].data as { conversation_id: string }).conversation_id;
    assertEquals(await hob.stop("SIGTERM"), 0);
  }

  await using again = await startHob(home.home);
  const { conversations } = await (await again.fetch("/api/conversations")).json();
  assertEquals(conversations.map((c: { id: string }) => c.id), [conversationId]);
  assertEquals(conversations[0].title, "What time is it in Oslo?");
  const { messages } = await (await again.fetch(`/api/conversations/${conversationId}/messages`))
    .json() as {
      messages: Message[];
    };
  assertEquals(messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  assertEquals(messages[1].tool_calls?.[0].name, "get_time");
  assertEquals(messages[2].tool_call_id, "call_clock");
  assertStringIncludes(messages[2].content, "Europe/Oslo");
  assertEquals(messages[3].content, "It is time for lunch in Oslo.");
  assert(messages.every((m) => m.status === "complete"));
});

Deno.test("hob serve survives a provider that is down and refuses requests without the token", async () => {
  await using home = await tempHome(fakeProviderYaml(`http://127.0.0.1:${closedPort()}/v1`));
  await using hob = await startHob(home.home);

  const response = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ message: "anyone there?" }),
  });
  const events = parseSse(await response.text());
  assertEquals(events.map((e) => e.event), ["start", "error", "done"]);
  assertMatch((events[1].data as { message: string }).message, /provider 'fake' is not reachable/);

  const health = await fetch(`${hob.url}/api/health`);
  assertEquals(health.status, 200);
  assertEquals((await health.json()).ok, true);

  const anonymous = await fetch(`${hob.url}/api/conversations`);
  assertEquals(anonymous.status, 401);
  assertEquals((await anonymous.json()).error.code, "unauthorized");
});

Deno.test("hob serve keeps a reply cut off by SIGKILL, and marks it interrupted on restart", async () => {
  const words = Array.from({ length: 400 }, (_, i) => `word${i} `);
  await using fake = startFakeOpenAI({ replies: [{ text: words, delay_ms: 5 }] });
  await using home = await tempHome(fakeProviderYaml(fake.url));

  let received = "";
  {
    await using hob = await startHob(home.home);
    const response = await hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "Tell me a long story" }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    // Twenty words shown (text comes in batches, each saved before it is sent).
    while ((received.match(/word\d+ /g) ?? []).length < 20) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value;
    }
    // Let a save interval pass, so the database has more than the first words.
    await new Promise((r) => setTimeout(r, 400));
    await hob.stop("SIGKILL");
    await reader.cancel().catch(() => {});
  }

  const db = new DatabaseSync(`${home.home}/hob.db`);
  const integrity = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
  const rows = db.prepare("SELECT role, content, status FROM messages ORDER BY id")
    .all() as unknown as Message[];
  db.close();
  assertEquals(integrity.integrity_check, "ok");
  assertEquals(rows.map((r) => [r.role, r.status]), [["user", "complete"], [
    "assistant",
    "streaming",
  ]]);
  const saved = rows[1].content;
  assert(saved.startsWith("word0 word1 "), `saved: ${saved.slice(0, 60)}`);
  assert(saved.length < words.join("").length, "the reply was cut off");

  await using again = await startHob(home.home);
  for (let i = 0; i < 20 && !again.stderr().includes("Marked"); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assertStringIncludes(
    again.stderr(),
    "Marked 1 reply(s) cut off by an earlier crash as interrupted.",
  );
  const { conversations } = await (await again.fetch("/api/conversations")).json();
  const { messages } =
    await (await again.fetch(`/api/conversations/${conversations[0].id}/messages`)).json() as {
      messages: Message[];
    };
  assertEquals(messages[1].status, "interrupted");
  assertEquals(messages[1].content, saved);
});

Deno.test("hob serve saves the partial reply when the client disconnects or hob is stopped", async (t) => {
  const words = Array.from({ length: 400 }, (_, i) => `w${i} `);
  await using fake = startFakeOpenAI({ fallback: { text: words, delay_ms: 5 } });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  await using hob = await startHob(home.home);

  const startStream = async (message: string) => {
    const controller = new AbortController();
    const response = await hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message }),
      signal: controller.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    // Ten words shown (text comes in batches, each saved before it is sent).
    while ((text.match(/w\d+ /g) ?? []).length < 10) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ten words: ${text}`);
      text += value;
    }
    const conversationId = /"conversation_id":"([^"]+)"/.exec(text)![1];
    return { controller, reader, conversationId };
  };
  const messagesOf = async (id: string) =>
    ((await (await hob.fetch(`/api/conversations/${id}/messages`)).json()) as {
      messages: Message[];
    }).messages;

  await t.step("a client that goes away", async () => {
    const { controller, conversationId } = await startStream("disconnect me");
    controller.abort();
    let reply: Message | undefined;
    for (let i = 0; i < 50 && reply?.status !== "interrupted"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      reply = (await messagesOf(conversationId))[1];
    }
    assertEquals(reply?.status, "interrupted");
    assert(reply!.content.startsWith("w0 w1 "));
  });

  await t.step("a client waiting for a JSON reply that goes away", async () => {
    const controller = new AbortController();
    const pending = hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "json then leave" }),
      signal: controller.signal,
    }).catch(() => null);
    // Leave once the reply has begun (on a busy machine that can take longer than a fixed wait).
    let conversations: { id: string }[] = [];
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      conversations = (await (await hob.fetch("/api/conversations?q=json%20then")).json())
        .conversations;
      if (conversations[0] && (await messagesOf(conversations[0].id))[1]?.content) break;
    }
    controller.abort();
    await pending;
    let reply: Message | undefined;
    for (let i = 0; i < 50 && reply?.status !== "interrupted"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      reply = (await messagesOf(conversations[0].id))[1];
    }
    assertEquals(reply?.status, "interrupted");
    assert(reply!.content.startsWith("w0 w1 "));
  });

  await t.step("SIGTERM while streaming", async () => {
    const { reader, conversationId } = await startStream("stop the server");
    assertEquals(await hob.stop("SIGTERM"), 0);
    await reader.cancel().catch(() => {});
    const db = new DatabaseSync(`${home.home}/hob.db`);
    const row = db.prepare(
      "SELECT content, status FROM messages WHERE conversation_id = ? AND role = 'assistant'",
    ).get(conversationId) as unknown as Message;
    db.close();
    assertEquals(row.status, "interrupted");
    assert(row.content.startsWith("w0 w1 "));
  });
});

Deno.test("another hob process leaves a reply that is still streaming alone", async () => {
  // Six seconds of reply: room for the second process to start and finish on a busy machine.
  const words = Array.from({ length: 600 }, (_, i) => `w${i} `);
  await using fake = startFakeOpenAI({ replies: [{ text: words, delay_ms: 10 }] });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  await using hob = await startHob(home.home);
  const response = hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "a slow one" }),
  });
  await new Promise((r) => setTimeout(r, 300));
  // A second process opens the same home while the reply streams (and runs crash recovery).
  const other = await runHob(["tool", "call", "get_time", "--home", home.home]);
  assertEquals(other.code, 0, other.stderr);
  const { conversations } = await (await hob.fetch("/api/conversations")).json();
  const during = await (await hob.fetch(`/api/conversations/${conversations[0].id}/messages`))
    .json() as {
      messages: Message[];
    };
  assertEquals(
    during.messages[1].status,
    "streaming",
    "the other process must not mark it interrupted",
  );
  const reply = await (await response).json();
  assertEquals(reply.status, "complete");
  const { messages } =
    await (await hob.fetch(`/api/conversations/${reply.conversation_id}/messages`)).json() as {
      messages: Message[];
    };
  assertEquals(messages[1].status, "complete");
  assertEquals(messages[1].content, words.join(""));
});

Deno.test("hob upgrades a hob.db from an earlier version, with its real permissions, and keeps a backup", async () => {
  await using home = await tempHome("memory: { embedder: none }");
  {
    // A database as the previous version of hob left it.
    const old = openDatabase(`${home.home}/hob.db`, { migrations: MIGRATIONS.slice(0, -1) });
    old.exec(
      "INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Before the upgrade', '2026-11-01', '2026-11-01')",
    );
    old.close();
  }
  const status = await runHob(["status", "--json", "--home", home.home]);
  assertEquals(status.code, 0, status.stderr);
  const previous = MIGRATIONS.at(-2)!.version;
  const backup = new DatabaseSync(`${home.home}/hob.db.backup-v${previous}`);
  assertEquals({ ...backup.prepare("PRAGMA user_version").get() }, { user_version: previous });
  assertEquals(backup.prepare("SELECT title FROM conversations").all().map((r) => r.title), [
    "Before the upgrade",
  ]);
  backup.close();
  const db = new DatabaseSync(`${home.home}/hob.db`);
  assertEquals({ ...db.prepare("PRAGMA user_version").get() }, { user_version: SCHEMA_VERSION });
  assertEquals(db.prepare("SELECT title FROM conversations").all().map((r) => r.title), [
    "Before the upgrade",
  ]);
  db.close();
});
