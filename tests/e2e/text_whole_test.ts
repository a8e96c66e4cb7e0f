/**
 * Issue 32, "text arrives whole or is refused": a NUL or a lone UTF-16
 * surrogate cannot be stored whole (SQLite reads a NUL back as the end of the
 * text; a lone surrogate becomes U+FFFD), so every way text comes into a real
 * `hob serve` refuses it with a 400 naming the field, and stores nothing. Other
 * characters, control characters included, arrive whole. A body that is not
 * UTF-8 is refused as docs/operations.md says.
 */

import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";

const NUL = "before\u0000after";
const LONE = "half of a pair: \ud83d then more";

async function send(
  hob: HobServer,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await hob.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

interface Refusal {
  method: string;
  path: string;
  body: unknown;
  field: string;
}

function refusals(conversation: string): Refusal[] {
  return [
    { method: "POST", path: "/api/chat", body: { message: NUL }, field: "message" },
    { method: "POST", path: "/api/chat", body: { message: LONE }, field: "message" },
    { method: "POST", path: "/api/memory/remember", body: { text: NUL }, field: "text" },
    { method: "POST", path: "/api/memory/log", body: { text: NUL }, field: "text" },
    {
      method: "PUT",
      path: "/api/memory/files/notes/nul.md",
      body: { content: `# Notes\n${NUL}\n` },
      field: "content",
    },
    {
      method: "PUT",
      path: "/api/memory/sections",
      body: { section: "Facts", content: NUL },
      field: "content",
    },
    { method: "POST", path: "/api/tasks", body: { title: NUL }, field: "title" },
    {
      method: "POST",
      path: "/api/tasks",
      body: { title: "Tidy", prompt: LONE },
      field: "prompt",
    },
    {
      method: "POST",
      path: "/api/schedules",
      body: { name: "Morning", prompt: NUL, schedule: "every day at 08:00" },
      field: "prompt",
    },
    { method: "POST", path: "/api/conversations", body: { title: NUL }, field: "title" },
    {
      method: "PATCH",
      path: `/api/conversations/${conversation}`,
      body: { title: NUL },
      field: "title",
    },
  ];
}

Deno.test("text holding a NUL or a lone surrogate is refused with a 400 naming the field, and nothing is stored", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "Noted." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const created = await send(hob, "POST", "/api/conversations", { title: "Kept" });
  assertEquals(created.status, 201);
  const conversation = created.body.id as string;

  for (const refusal of refusals(conversation)) {
    const answer = await send(hob, refusal.method, refusal.path, refusal.body);
    const error = answer.body.error as { code: string; message: string; field?: string };
    assertEquals(
      [answer.status, error.field],
      [400, refusal.field],
      `${refusal.method} ${refusal.path}: ${JSON.stringify(answer.body)}`,
    );
    assert(/NUL|surrogate/.test(error.message), error.message);
  }

  const v1 = await send(hob, "POST", "/v1/chat/completions", {
    model: "hob",
    messages: [{ role: "user", content: NUL }],
  });
  assertEquals(v1.status, 400, JSON.stringify(v1.body));
  assertEquals((v1.body.error as { param: string }).param, "messages.0.content");

  // Nothing reached the model, the database or a memory file.
  assertEquals(fake.requests.length, 0);
  using db = new DatabaseSync(`${home.home}/hob.db`, { readOnly: true });
  const titles = db.prepare("SELECT title FROM conversations").all().map((row) => row.title);
  assertEquals(titles, ["Kept"]);
  assertEquals(db.prepare("SELECT count(*) AS n FROM messages").get()!.n, 0);
  assertEquals(db.prepare("SELECT count(*) AS n FROM tasks").get()!.n, 0);
  for await (const entry of Deno.readDir(`${home.home}/memory`)) {
    if (!entry.isFile) continue;
    const bytes = await Deno.readFile(`${home.home}/memory/${entry.name}`);
    assert(!bytes.includes(0), `${entry.name} holds a NUL`);
  }
});

Deno.test("other characters, control characters included, arrive whole; a model's NUL is marked", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "Fine\u0000 by me." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const message = "tab\there, bell\u0007, escape\u001b[31m, é, 😀, \u2028 and the end";
  const answer = await send(hob, "POST", "/api/chat", { message });
  assertEquals(answer.status, 200, JSON.stringify(answer.body));
  const id = answer.body.conversation_id as string;
  const listed = await hob.fetch(`/api/conversations/${id}/messages`);
  const { messages } = await listed.json() as { messages: { role: string; content: string }[] };
  assertEquals(messages.find((m) => m.role === "user")?.content, message);
  // What the model sent cannot be refused: its NUL is marked, the rest kept.
  assertEquals(answer.body.content, "Fine\u0000 by me.");
  assertEquals(messages.find((m) => m.role === "assistant")?.content, "Fine\uFFFD by me.");
  const sent = JSON.stringify(fake.requests.at(-1));
  assert(sent.includes(JSON.stringify(message).slice(1, -1)), "the model read it whole");
});

Deno.test("a body that is not UTF-8 is a 400 in the API's own shape", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "Noted." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const bytes = (text: string) => {
    const encoded = new TextEncoder().encode(text);
    const cut = encoded.indexOf(0x58); // "X" becomes a lone continuation byte
    encoded[cut] = 0x80;
    return encoded;
  };
  const api = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bytes(JSON.stringify({ message: "hello X there" })),
  });
  assertEquals(api.status, 400);
  const error = (await api.json()).error;
  assertEquals(error.code, "invalid_json");
  assert(error.message.includes("UTF-8"), error.message);

  const v1 = await hob.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bytes(JSON.stringify({ model: "hob", messages: [{ role: "user", content: "X" }] })),
  });
  assertEquals(v1.status, 400);
  const v1Error = (await v1.json()).error;
  assert(v1Error.message.includes("UTF-8"), v1Error.message);
  assertEquals(fake.requests.length, 0);
});

Deno.test("a model name too short to be one is told what form a model name takes", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "Hi." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const answer = await send(hob, "POST", "/api/chat", { message: "hi", model: "zz" });
  const error = answer.body.error as { field: string; message: string };
  assertEquals([answer.status, error.field], [400, "model"]);
  assertEquals(
    error.message,
    "model 'zz' is not of the form '<provider>/<model>', e.g. 'ollama/llama3.2'",
  );
});
