/**
 * The cost of the tool sandbox: a no-op tool (get_time) called through the
 * registry — validation, policy, a fresh Worker with its permissions, the
 * audit log — measured warm (a Worker was started ahead while the model
 * "thinks" for 150 ms, as between real tool calls) and cold (back to back, no
 * Worker waiting). Also the size of the built-in tools' schemas in tokens.
 */

import { estimateToolTokens } from "../src/core/budget.ts";
import { tempRegistry } from "../tests/helpers/tools.ts";
import { ms, percentile } from "./stats.ts";

const CALLS = 100;
/** Time between calls in the warm case, like a model answering between tool calls. */
const THINK_MS = 150;

export interface ToolOverheadResult {
  warm_p50: number;
  warm_p95: number;
  cold_p50: number;
  cold_p95: number;
  tools: number;
  schema_tokens: number;
  schema_chars: number;
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
  ].join("\n");
}

if (import.meta.main) console.log(formatToolOverhead(await measureToolOverhead()));
