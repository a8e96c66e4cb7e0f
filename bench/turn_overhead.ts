/**
 * Per-turn overhead: the time hob spends on a turn outside the provider —
 * storing messages, reading history, building the prompt, the HTTP client,
 * saving the reply — against a fake provider that answers at once, for
 * conversations of 10 and 10,000 messages. Provider time is what the fake
 * itself measured from the request's arrival to its last byte.
 */

import { collectReply } from "../src/core/reply.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";
import { openRuntime } from "../src/runtime/runtime.ts";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { ms, percentile } from "./stats.ts";

/** Turns run before measuring, to warm caches and the JIT. */
const WARMUP_TURNS = 30;
/** Turns measured per conversation size. */
const MEASURED_TURNS = 300;

export interface OverheadResult {
  messages: number;
  turns: number;
  total_p50: number;
  total_p95: number;
  overhead_p50: number;
  overhead_p95: number;
}

/** Measures turn overhead for a conversation of `size` messages. */
export async function measureTurnOverhead(size: number): Promise<OverheadResult> {
  await using fake = startFakeOpenAI({ fallback: { text: "Fine, thanks." } });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const runtime = await openRuntime({ home: home.home, env: {} });
  try {
    const conversation = runtime.conversations.createConversation({ title: "bench" });
    runtime.db.exec("BEGIN");
    for (let i = 0; i < size; i++) {
      runtime.conversations.addMessage({
        conversation_id: conversation.id,
        role: i % 2 === 0 ? "user" : "assistant",
        content: `Message ${i}: ${"lorem ipsum dolor sit amet ".repeat(6)}`,
      });
    }
    runtime.db.exec("COMMIT");
    const baseline = runtime.conversations.recentMessages(conversation.id, 1)[0]?.id ?? 0;
    const trim = runtime.db.prepare("DELETE FROM messages WHERE conversation_id = ? AND id > ?");

    const totals: number[] = [];
    const overheads: number[] = [];
    for (let i = 0; i < WARMUP_TURNS + MEASURED_TURNS; i++) {
      const before = fake.requests.length;
      const started = performance.now();
      const reply = await collectReply(
        runtime.turn({ message: `How are you? (${i})`, conversation_id: conversation.id }),
      );
      const total = performance.now() - started;
      if (reply.status !== "complete") {
        throw new Error(`turn failed: ${JSON.stringify(reply.error)}`);
      }
      const provider = fake.requests.slice(before).reduce(
        (sum, r) => sum + (r.duration_ms ?? 0),
        0,
      );
      // Keep the conversation at `size` messages.
      trim.run(conversation.id, baseline);
      if (i < WARMUP_TURNS) continue;
      totals.push(total);
      overheads.push(total - provider);
    }
    return {
      messages: size,
      turns: MEASURED_TURNS,
      total_p50: percentile(totals, 50),
      total_p95: percentile(totals, 95),
      overhead_p50: percentile(overheads, 50),
      overhead_p95: percentile(overheads, 95),
    };
  } finally {
    await runtime.close();
  }
}

/**
 * The bound of the turn overhead with the default embedder: USE-lite alone
 * embedding the messages the turns send, one at a time as a turn's lookup
 * does. Every turn waits for its query's vector, so its overhead cannot be
 * lower than this.
 */
export async function measureQueryEmbedding(): Promise<{ p50: number; p95: number }> {
  const embedder = createUseLiteEmbedder();
  try {
    await embedder.load();
    const times: number[] = [];
    for (let i = 0; i < WARMUP_TURNS + MEASURED_TURNS; i++) {
      const started = performance.now();
      await embedder.embed([`How are you? (${i})`], "query");
      if (i >= WARMUP_TURNS) times.push(performance.now() - started);
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  } finally {
    embedder.close();
  }
}

/** One line: the query embedding's times, the turn overhead's bound. */
export function formatQueryEmbedding(result: { p50: number; p95: number }, floor?: number): string {
  return `bound: USE-lite alone embedding each turn's message: p50 ${ms(result.p50, floor)}, p95 ${
    ms(result.p95, floor)
  } (${MEASURED_TURNS} queries)`;
}

/** Prints one result line; given the floor (bench/startup.ts), each time's ratio to it. */
export function formatOverhead(result: OverheadResult, floor?: number): string {
  return `turn overhead, ${String(result.messages).padStart(6)} messages: p50 ${
    ms(result.overhead_p50, floor)
  }, p95 ${ms(result.overhead_p95, floor)} (whole turn p50 ${ms(result.total_p50, floor)}, p95 ${
    ms(result.total_p95, floor)
  }; ${result.turns} turns)`;
}

if (import.meta.main) {
  for (const size of [10, 10_000]) console.log(formatOverhead(await measureTurnOverhead(size)));
  console.log(formatQueryEmbedding(await measureQueryEmbedding()));
}
