/**
 * Another program holding hob.db's write lock for 8 s (a separate `deno`
 * process in `BEGIN IMMEDIATE`, as `sqlite3` or a backup tool would) while a
 * real `hob serve` runs as shipped: health and reads keep answering, a reply
 * streaming across the lock is saved whole once it is released, a chat sent
 * during the lock completes or is answered 503 `store_busy` — never a 500 —
 * and the next chat after it completes, with nothing lost. Every wait is on
 * something observable (the holder's words, SSE events, responses); the
 * latencies are printed, not asserted.
 */

import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { fakeProviderYaml, parseSse, type SseEvent, tempHome } from "../helpers/home.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";
import { holdWriteLock } from "../helpers/hold_lock.ts";

/** How long the other program holds the lock: what the issue measured hob freezing for. */
const HOLD_MS = 8_000;
/**
 * Fewest health answers during the lock, polling one after another. A hob that
 * waits inside SQLite answers one or none (each wait blocks for seconds); one
 * that does not answers hundreds.
 */
const FEWEST_HEALTH_ANSWERS = 10;

/** The words of the slow reply, streamed one every 250 ms: it runs across the lock. */
const SLOW_WORDS = Array.from({ length: 24 }, (_, i) => `word${i} `);

/** The last user message of a chat request. */
function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const content = messages.filter((m) => m.role === "user").at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

async function chat(hob: HobServer, message: string): Promise<Response> {
  return await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
}

/** A chat's SSE events as they arrive. */
function sseOf(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = "";
  return {
    events,
    async until(what: string, predicate: () => boolean): Promise<void> {
      while (!predicate()) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${what}`);
        buffer += value;
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop()!;
        for (const block of blocks) events.push(...parseSse(`${block}\n\n`));
      }
    },
  };
}

interface Row {
  conversation_id: string;
  role: string;
  content: string;
  status: string;
}

function readDb<T>(home: string, read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(home, "hob.db"), { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The `p` quantile of sorted latencies, in ms with one decimal; "-" for none. */
function percentile(sorted: number[], p: number): string {
  if (sorted.length === 0) return "-";
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1);
}

Deno.test("another program holding hob.db's write lock for 8 s freezes nothing and loses nothing", async () => {
  await using fake = startFakeOpenAI({
    respond: (body) => {
      const text = lastUserText(body);
      return text.includes("slow")
        ? { text: SLOW_WORDS, delay_ms: 250 }
        : { text: `answer to ${text}` };
    },
  });
  await using home = await tempHome(fakeProviderYaml(
    fake.url,
    "heartbeat: { enabled: false }\nmemory: { embedder: none }",
  ));
  await using hob = await startHob(home.home);
  const warm = await chat(hob, "warm up");
  assertEquals(warm.status, 200);
  await warm.body?.cancel();

  // A reply that streams across the lock: its saves wait, then it ends whole.
  const slow = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ message: "slow: take your time" }),
  });
  assertEquals(slow.status, 200);
  const stream = sseOf(slow);
  await stream.until(
    "the slow reply's first text",
    () => stream.events.some((e) => e.event === "text"),
  );

  await using lock = await holdWriteLock(join(home.home, "hob.db"), HOLD_MS);
  const locked = performance.now();
  const during = chat(hob, "sent during the lock").then(async (response) => ({
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: await response.json(),
  }));
  const conversationsId = await firstConversation(hob);

  // Health, polled one request after another, and reads, until the lock is let go.
  const health: number[] = [];
  const reads: string[] = [];
  let polls = 0;
  while (!lock.isReleased()) {
    const started = performance.now();
    const response = await hob.fetch("/api/health");
    await response.body?.cancel();
    assertEquals(response.status, 200, "health answers during the lock");
    if (!lock.isReleased()) health.push(performance.now() - started);
    if (polls++ % 50 === 0) {
      for (
        const path of [
          "/api/conversations",
          `/api/conversations/${conversationsId}/messages`,
          "/api/approvals",
          "/api/tasks",
          "/api/notifications",
          "/api/schedules",
          "/api/status",
          "/ui/badges",
        ]
      ) {
        const read = await hob.fetch(path);
        await read.body?.cancel();
        reads.push(`${path} ${read.status}`);
      }
    }
  }
  const releasedAt = await lock.released;

  // The chat sent during the lock: completed after the release, or a 503 naming the busy store.
  const sent = await during;
  if (sent.status === 503) {
    assertEquals(sent.body.error.code, "store_busy");
    assertMatch(sent.body.error.message, /hob\.db is busy: another program .* try again/);
    assertEquals(sent.retryAfter, "5");
  } else {
    assertEquals(sent.status, 200, JSON.stringify(sent.body));
    assertEquals(sent.body.status, "complete");
  }

  // The reply streaming across the lock ends as it would have, with no error.
  await stream.until("the slow reply's end", () => stream.events.some((e) => e.event === "done"));
  assertEquals(stream.events.filter((e) => e.event === "error"), []);
  const slowText = stream.events.filter((e) => e.event === "text")
    .map((e) => (e.data as { text: string }).text).join("");
  assertEquals(slowText, SLOW_WORDS.join(""));
  const done = stream.events.find((e) => e.event === "done")!.data as {
    status: string;
    conversation_id: string;
  };
  assertEquals(done.status, "complete");

  // After the release the next chat completes.
  const after = await chat(hob, "sent after the lock");
  assertEquals(after.status, 200);
  assertEquals((await after.json()).content, "answer to sent after the lock");

  // Nothing lost, nothing half-written.
  const rows = readDb(
    home.home,
    (db) =>
      db.prepare("SELECT conversation_id, role, content, status FROM messages ORDER BY id").all()
        .map((row) => ({ ...row }) as unknown as Row),
  );
  const integrity = readDb(home.home, (db) => ({ ...db.prepare("PRAGMA integrity_check").get() }));
  assertEquals(integrity, { integrity_check: "ok" });
  assertEquals(rows.filter((row) => row.status !== "complete"), []);
  const slowRows = rows.filter((row) => row.conversation_id === done.conversation_id);
  assertEquals(slowRows.map((row) => [row.role, row.content]), [
    ["user", "slow: take your time"],
    ["assistant", SLOW_WORDS.join("")],
  ]);
  const duringRows = rows.filter((row) => row.content.includes("sent during the lock"));
  // Refused: nothing of it stored. Answered: its question and its answer.
  assertEquals(duringRows.map((row) => row.role), sent.status === 503 ? [] : ["user", "assistant"]);
  assert(rows.some((row) => row.content === "answer to sent after the lock"));
  assertEquals(reads.filter((read) => !read.endsWith(" 200")), []);
  assertEquals(hob.stderr().match(/internal error/g), null);

  const sorted = [...health].sort((a, b) => a - b);
  console.log(
    `health during the ${HOLD_MS / 1000} s lock: ${health.length} answers, ` +
      `p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms, ` +
      `max ${percentile(sorted, 1)} ms; lock held ${
        ((releasedAt - locked) / 1000).toFixed(1)
      } s; ` +
      `chat sent during it: ${sent.status}`,
  );
  assert(
    health.length >= FEWEST_HEALTH_ANSWERS,
    `health answered ${health.length} times during the lock`,
  );
});

/** The id of the oldest conversation (the warm-up's), for a read of its messages. */
async function firstConversation(hob: HobServer): Promise<string> {
  const response = await hob.fetch("/api/conversations");
  const { conversations } = await response.json() as { conversations: { id: string }[] };
  return conversations.at(-1)!.id;
}
