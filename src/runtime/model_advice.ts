/**
 * What `hob serve` says as it starts when hob's model cannot answer (in the
 * wording of `modelAdvice`, src/app/models.ts), and the doctor's check that
 * the model calls tools: the two questions put to the router itself.
 */

import type { HobConfig } from "../config/schema.ts";
import { scrubSecrets, secretValues } from "../config/redact.ts";
import type { LlmRouter } from "../llm/router.ts";
import { modelAdvice } from "../app/models.ts";
import type { ToolRegistryPort } from "../core/ports.ts";
import { completeText } from "../core/complete.ts";
import type { ToolCallProbe } from "../app/models.ts";

/**
 * The advice for hob.yaml's model as `hob serve` starts, or null when its
 * provider answers: a missing key is known without asking, else the provider
 * is asked for its models once (one request, as discovery makes). Never throws.
 *
 * @example
 * ```ts
 * const advice = await startAdvice(runtime.llm, runtime.config, stopping.signal);
 * if (advice) console.error(`hob: ${advice}`);
 * ```
 */
export async function startAdvice(
  llm: Pick<LlmRouter, "reach" | "checkModel">,
  config: HobConfig,
  signal?: AbortSignal,
): Promise<string | null> {
  try {
    const unknown = llm.checkModel(config.model);
    if (unknown) {
      return `The ${unknown}: correct model in hob.yaml and restart hob, or run 'hob onboard' to choose one.`;
    }
    const status = await llm.reach(config.model, signal);
    if (!status) return null;
    // A provider's error may quote its URL with a password in it: never shown.
    const shown = scrubSecrets(status, secretValues(config));
    return modelAdvice(config.model, { models: [], providers: [shown] });
  } catch {
    return null;
  }
}

/** How long the doctor waits for the model to call a tool. */
const TOOL_PROBE_TIMEOUT_MS = 60_000;
/** Tokens the model may spend on that answer. */
const TOOL_PROBE_MAX_TOKENS = 256;

/**
 * Asks `model` once, with hob's `get_time` tool, to call it (`hob doctor`):
 * whether it did, or why not.
 *
 * @example
 * ```ts
 * await probeToolCall(llm, agent.tools, "ollama/llama3.2"); // { called: true }
 * ```
 */
export async function probeToolCall(
  llm: LlmRouter,
  tools: Pick<ToolRegistryPort, "specs">,
  model: string,
): Promise<ToolCallProbe> {
  const signal = AbortSignal.timeout(TOOL_PROBE_TIMEOUT_MS);
  const { toolCalls, error } = await completeText(llm, {
    model,
    system: "You are being tested. When asked for the time, call the get_time tool.",
    prompt: "What time is it? Use the get_time tool.",
    tools: tools.specs().filter((tool) => tool.name === "get_time"),
    maxOutputTokens: TOOL_PROBE_MAX_TOKENS,
    signal,
  });
  if (toolCalls.some((call) => call.name === "get_time")) return { called: true };
  return {
    called: false,
    error: signal.aborted
      ? `no answer within ${TOOL_PROBE_TIMEOUT_MS / 1000} s`
      : error?.message ?? "the model answered without calling the tool",
  };
}
