/**
 * A pasted message of any size: the time from a turn's start until the
 * provider hears it, and what the per-turn memory lookup costs, for messages
 * of 2 KB to 400 KB — with the default embedder (USE-lite) and a memory with
 * notes in it, against a fake provider that answers at once. The lookup's
 * cost should be flat in the message's size: it reads a bounded query.
 */

import { collectReply } from "../src/core/reply.ts";
import { openRuntime } from "../src/runtime/runtime.ts";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../tests/helpers/home.ts";
import { ms, percentile } from "./stats.ts";

/** Message sizes, in bytes. */
export const SIZES = [2_000, 40_000, 400_000];
/** Turns measured per size, after one unmeasured. */
const TURNS = 5;
/** Lookups measured per size, after one unmeasured. */
const LOOKUPS = 20;

const WORDS = (
  "the project plan for next quarter covers budget hiring travel to kyoto and lisbon a new " +
  "release of the billing service with faster invoices fewer support tickets and a review of " +
  "vendor contracts before renewal meeting notes say grace will own the migration while ada " +
  "drafts the proposal"
).split(" ");

/** About `bytes` of prose-like text, different for each `seed`. */
export function pastedText(bytes: number, seed: number): string {
  const words: string[] = [];
  let size = 0;
  let state = seed + 1;
  while (size < bytes) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const word = WORDS[state % WORDS.length];
    words.push(word);
    size += word.length + 1;
  }
  return `Please read this and tell me what to do first:\n\n${words.join(" ")}\n\nWhat now?`;
}

/** One size's figures, in milliseconds. */
export interface BigMessageResult {
  bytes: number;
  /** From the turn's start to the provider's first byte of the request: median. */
  toProvider: number;
  /** The memory section of the prompt (search included) for this message: median. */
  lookup: number;
}

/** Measures every size on one home with a few notes in memory. */
export async function measureBigMessages(sizes = SIZES): Promise<BigMessageResult[]> {
  await using fake = startFakeOpenAI({ fallback: { text: "Read it." } });
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const runtime = await openRuntime({ home: home.home, env: {} });
  try {
    for (const note of NOTES) {
      await runtime.memory.remember(note, { author: "owner", via: "bench" });
    }
    await runtime.memory.settle();
    const results: BigMessageResult[] = [];
    for (const bytes of sizes) {
      const toProvider: number[] = [];
      for (let turn = 0; turn <= TURNS; turn++) {
        const message = pastedText(bytes, turn);
        const before = fake.requests.length;
        const started = performance.now();
        const reply = await collectReply(runtime.turn({ message }));
        if (reply.status !== "complete") throw new Error(`turn failed: ${reply.error?.message}`);
        const request = fake.requests[before];
        if (turn > 0) toProvider.push(request.arrived - started);
      }
      const lookups: number[] = [];
      for (let i = 0; i <= LOOKUPS; i++) {
        const message = pastedText(bytes, 100 + i);
        const started = performance.now();
        await runtime.agent.prompt.memoryContext(message);
        if (i > 0) lookups.push(performance.now() - started);
      }
      results.push({
        bytes,
        toProvider: percentile(toProvider, 50),
        lookup: percentile(lookups, 50),
      });
    }
    return results;
  } finally {
    await runtime.close();
  }
}

const NOTES = [
  "Grace owns the billing migration; the deadline is the end of the quarter.",
  "The Kyoto trip is booked for April; the hotel is near the station.",
  "Vendor contracts renew in March; review them in February.",
  "Ada prefers proposals as one page with the budget first.",
];

/** One line per size; given the floor, each time's ratio to it. */
export function formatBigMessages(results: BigMessageResult[], floor?: number): string {
  return results.map((r) =>
    `a pasted ${
      String(Math.round(r.bytes / 1000)).padStart(3)
    } KB message: reaches the provider in ${ms(r.toProvider, floor)}; the memory lookup ${
      ms(r.lookup, floor)
    } (medians of ${TURNS} turns, ${LOOKUPS} lookups)`
  ).join("\n");
}

if (import.meta.main) console.log(formatBigMessages(await measureBigMessages()));
