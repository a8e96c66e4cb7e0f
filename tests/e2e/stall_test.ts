/**
 * A provider that goes quiet mid-answer, against a real `hob serve`: the fake
 * sends twenty tokens, then nothing, with the connection left open. The
 * provider's `idle_timeout_ms` ends the answer as any provider failure ends:
 * the text kept with `status: "error"`, an `error` and a `done` event, and the
 * conversation free for its next message.
 */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { parseSse, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

/** No background work, keyword search only. */
const QUIET = `heartbeat: { enabled: false }
tasks: { workers: 0 }
memory: { embedder: none }`;

/** What the issue asks: a stalled stream has ended with its error within a minute. */
const WITHIN_MS = 60_000;

Deno.test("a provider that goes quiet mid-answer: the stream ends with an error within a minute, and the conversation's next message is answered", async () => {
  const tokens = Array.from({ length: 20 }, (_, i) => `tok${i} `);
  await using fake = startFakeOpenAI({
    replies: [{ text: tokens, stall: true }, { text: "Back again." }],
  });
  await using home = await tempHome(`model: fake/fake-model
providers:
  fake: { type: openai, base_url: "${fake.url}", api_key: test, max_retries: 0, idle_timeout_ms: 5000 }
${QUIET}`);
  await using hob = await startHob(home.home);

  const started = performance.now();
  const response = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ message: "Tell me a long story" }),
    signal: AbortSignal.timeout(WITHIN_MS),
  });
  const body = await response.text().catch((error) => {
    throw new Error(`the stalled stream had not ended after ${WITHIN_MS} ms: ${error}`);
  });
  const elapsed = performance.now() - started;
  console.log(`the stalled stream ended after ${(elapsed / 1000).toFixed(1)} s`);

  const events = parseSse(body);
  const kinds = events.map((e) => e.event).filter((kind) => kind !== "title");
  assertEquals(kinds.slice(-2), ["error", "done"]);
  const shown = events.filter((e) => e.event === "text")
    .map((e) => (e.data as { text: string }).text).join("");
  assertEquals(shown, tokens.join(""));
  const error = events.find((e) => e.event === "error")!.data as { code: string; message: string };
  assertEquals(error.code, "provider_timeout");
  assertMatch(
    error.message,
    /provider 'fake' stopped sending mid-answer: nothing came for 5 s.*providers\.fake\.idle_timeout_ms/,
  );
  const done = events.at(-1)!.data as { conversation_id: string; status: string };
  assertEquals(done.status, "error");

  // The reply is kept, as failed, with what came.
  const { messages } = await (await hob.fetch(
    `/api/conversations/${done.conversation_id}/messages`,
  )).json();
  const reply = messages.at(-1);
  assertEquals([reply.role, reply.status, reply.content], ["assistant", "error", tokens.join("")]);
  assertEquals(reply.error.code, "provider_timeout");

  // The conversation takes its next message.
  const next = await hob.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "Are you there?", conversation_id: done.conversation_id }),
  });
  assertEquals(next.status, 200);
  const answer = await next.json();
  assertEquals([answer.status, answer.content], ["complete", "Back again."]);
  assert(elapsed < WITHIN_MS);
});
