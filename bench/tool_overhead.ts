/**
 * The cost of the tool sandbox: a no-op tool (get_time) called through the
 * registry — validation, policy, a fresh Worker with its permissions, the
 * audit log — measured warm (a Worker was started ahead while the model
 * "thinks" for 150 ms, as between real tool calls) and cold (back to back, no
 * Worker waiting). Also the size of the built-in tools' schemas in tokens,
 * and the fixed prompt a turn pays for its tools (the schemas and the system
 * prompt's list of them) with `tools.offer: all` and, for a few sample
 * messages, `relevant` at its default budget.
 */

import { estimateTokens, estimateToolTokens } from "../src/core/budget.ts";
import { describeTools } from "../src/core/prompt.ts";
import { offeredOf, selectTools } from "../src/core/tool_offer.ts";
import type { ToolSpec } from "../src/core/types.ts";
import { tempRegistry } from "../tests/helpers/tools.ts";
import { ms, percentile } from "./stats.ts";

const CALLS = 100;
/** Time between calls in the warm case, like a model answering between tool calls. */
const THINK_MS = 150;
/** `tools.offer_tokens`' default. */
const OFFER_TOKENS = 1_200;
/** Messages of the kinds people send, for the size of a `relevant` offer. */
const SAMPLE_MESSAGES = [
  "What time is it in Tokyo?",
  "Read notes.txt and fix the typo in it",
  "Search the web for the latest Deno release",
  "Email the report to Ann every Monday",
];

export interface ToolOverheadResult {
  warm_p50: number;
  warm_p95: number;
  cold_p50: number;
  cold_p95: number;
  tools: number;
  schema_tokens: number;
  schema_chars: number;
  /** Tokens of tool schemas and the prompt's tool list with `tools.offer: all`. */
  offer_all_tokens: number;
  /** The same with `relevant`, per sample message: the tools offered and their tokens. */
  offer_relevant: { message: string; tools: number; tokens: number }[];
}

/** What a turn pays for `tools` before anyone says anything: their schemas and their list in the prompt. */
function fixedToolTokens(tools: ToolSpec[]): number {
  return estimateToolTokens(tools) + estimateTokens(describeTools(tools));
}

/** Measures the sandboxed call overhead and the schema size. */
export async function measureToolOverhead(): Promise<ToolOverheadResult> {
  await using r = await tempRegistry();
  const context = { conversation_id: null };
  const callOnce = async () => {
    const started = performance.now();
    const result = await r.registry.execute(
      { id: "b", name: "get_time", arguments: "{}" },
      context,
    );
    if (result.is_error) throw new Error(result.content);
    return performance.now() - started;
  };
  // Warm-up: compile the Worker's modules once.
  for (let i = 0; i < 5; i++) {
    await callOnce();
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  }
  const warm: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    warm.push(await callOnce());
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  }
  const cold: number[] = [];
  for (let i = 0; i < CALLS / 4; i++) cold.push(await callOnce());
  const specs = r.registry.specs();
  const wire = specs.map((s) => ({
    type: "function",
    function: { name: s.name, description: s.description, parameters: s.parameters },
  }));
  return {
    warm_p50: percentile(warm, 50),
    warm_p95: percentile(warm, 95),
    cold_p50: percentile(cold, 50),
    cold_p95: percentile(cold, 95),
    tools: specs.length,
    schema_tokens: estimateToolTokens(specs),
    schema_chars: JSON.stringify(wire).length,
    offer_all_tokens: fixedToolTokens(specs),
    offer_relevant: SAMPLE_MESSAGES.map((message) => {
      const offer = selectTools(specs, { message, history: [], budgetTokens: OFFER_TOKENS });
      const tools = offeredOf(specs, offer);
      return { message, tools: tools.length, tokens: fixedToolTokens(tools) };
    }),
  };
}

/** Prints the result lines; given the floor (bench/startup.ts), each time's ratio to it. */
export function formatToolOverhead(r: ToolOverheadResult, floor?: number): string {
  return [
    `sandboxed tool call (no-op through a Worker), warm: p50 ${ms(r.warm_p50, floor)}, p95 ${
      ms(r.warm_p95, floor)
    } (${CALLS} calls, ${THINK_MS} ms apart)`,
    `sandboxed tool call, cold (back to back): p50 ${ms(r.cold_p50, floor)}, p95 ${
      ms(r.cold_p95, floor)
    }`,
    `built-in tool schemas: ${r.tools} tools, ~${r.schema_tokens} tokens (${r.schema_chars} characters as OpenAI tools JSON)`,
    `fixed tool prompt (schemas + the prompt's list), tools.offer all: ${r.tools} tools, ~${r.offer_all_tokens} tokens`,
    ...r.offer_relevant.map(({ message, tools, tokens }) =>
      `fixed tool prompt, tools.offer relevant (${OFFER_TOKENS}), "${message}": ${tools} tools, ~${tokens} tokens`
    ),
  ].join("\n");
}

if (import.meta.main) console.log(formatToolOverhead(await measureToolOverhead()));
