/**
 * A scripted in-process LLM for agent tests: each request takes the next
 * script from the queue and yields its events, pausing where told. Records the
 * requests it saw. `satisfies LlmPort` keeps it from drifting from the port.
 */

import type { LlmPort } from "../../src/core/ports.ts";
import type { LlmEvent, LlmRequest } from "../../src/core/types.ts";

/** An event, or a pause before the next one. */
export type ScriptStep = LlmEvent | { type: "wait"; ms: number };

/** Builds the steps of a plain text answer. */
export function textReply(...chunks: string[]): ScriptStep[] {
  return [
    ...chunks.map((text) => ({ type: "text" as const, text })),
    { type: "usage", usage: { input_tokens: 10, output_tokens: chunks.length } },
    { type: "done", stop_reason: "stop" },
  ];
}

/** Builds the steps of an answer that calls tools. */
export function toolReply(
  ...calls: { name: string; arguments?: unknown; id?: string }[]
): ScriptStep[] {
  return [
    ...calls.map((call, i) => ({
      type: "tool_call" as const,
      call: {
        id: call.id ?? `call_${i}_${crypto.randomUUID().slice(0, 6)}`,
        name: call.name,
        arguments: typeof call.arguments === "string"
          ? call.arguments
          : JSON.stringify(call.arguments ?? {}),
      },
    })),
    { type: "usage", usage: { input_tokens: 10, output_tokens: 2 } },
    { type: "done", stop_reason: "tool_calls" },
  ];
}

/**
 * Creates a scripted LLM.
 *
 * @example
 * ```ts
 * const llm = scriptedLlm([textReply("Hello")]);
 * ```
 */
export function scriptedLlm(scripts: ScriptStep[][], fallback: ScriptStep[] = textReply("ok")) {
  const queue = [...scripts];
  const requests: LlmRequest[] = [];
  const llm = {
    requests,
    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      requests.push({ ...request, messages: structuredClone(request.messages) });
      for (const step of queue.shift() ?? fallback) {
        if (request.signal?.aborted) return;
        if (step.type === "wait") {
          await new Promise((resolve) => setTimeout(resolve, step.ms));
          continue;
        }
        yield step;
      }
    },
  } satisfies LlmPort & { requests: LlmRequest[] };
  return llm;
}
