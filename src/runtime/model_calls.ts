/**
 * The one place every model call is counted: the router every caller reaches
 * (the agent's steps, titles, flushes, skills, jobs, tasks, the heartbeat,
 * sub-agents, `/v1`, MCP, the doctor's probe) is wrapped here, and each
 * request leaves one row in the call log when its stream ends — however it
 * ends — with the tokens the provider reported and their cost; the write
 * waits (without blocking) while another program holds hob.db.
 */

import type { Conversation, LlmEvent, LlmRequest } from "../core/types.ts";
import type { LlmRouter } from "../llm/router.ts";
import { costOf, type PriceTable } from "../app/prices.ts";
import type { SqliteModelCalls } from "../store/model_calls.ts";

/** What the counting router needs. */
export interface CountingDeps {
  calls: Pick<SqliteModelCalls, "record" | "write">;
  /** The conversation a call belongs to, for its kind (a job's, a task's, …). */
  conversation(id: string): Conversation | undefined;
  prices: PriceTable;
  now: () => Date;
}

/**
 * `router`, with every call it streams recorded in the call log. The call's
 * kind is its `purpose.kind`, else its conversation's kind, else `other`.
 * Recording never breaks a call: a write that fails is logged.
 *
 * @example
 * ```ts
 * const llm = countingRouter(createLlmRouter(config), { calls, conversation, prices, now });
 * ```
 */
export function countingRouter(router: LlmRouter, deps: CountingDeps): LlmRouter {
  return {
    checkModel: (model) => router.checkModel(model),
    prepare: (model) => router.prepare(model),
    discover: (signal) => router.discover(signal),
    reach: (model, signal) => router.reach(model, signal),
    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      const tokens = { input_tokens: 0, output_tokens: 0, cached_tokens: 0 };
      let error: string | null = null;
      try {
        for await (const event of router.stream(request)) {
          if (event.type === "usage") {
            tokens.input_tokens += event.usage.input_tokens;
            tokens.output_tokens += event.usage.output_tokens;
            tokens.cached_tokens += event.usage.cache_read_tokens ?? 0;
          } else if (event.type === "error") {
            error = event.error.code;
          }
          yield event;
        }
      } finally {
        await record(deps, request, tokens, error);
      }
    },
  };
}

async function record(
  deps: CountingDeps,
  request: LlmRequest,
  tokens: { input_tokens: number; output_tokens: number; cached_tokens: number },
  error: string | null,
): Promise<void> {
  const purpose = request.purpose ?? {};
  const conversationId = purpose.conversation_id ?? null;
  try {
    const conversation = conversationId ? deps.conversation(conversationId) : undefined;
    const slash = request.model.indexOf("/");
    const call = {
      at: deps.now().toISOString(),
      model: request.model,
      provider: slash > 0 ? request.model.slice(0, slash) : "",
      kind: purpose.kind ?? conversation?.kind ?? "other",
      // A conversation deleted meanwhile is still the call's, but not looked up again.
      conversation_id: conversationId,
      tool: purpose.tool ?? null,
      ...tokens,
      cost_usd: costOf(request.model, tokens, deps.prices),
      error,
    };
    await deps.calls.write(() => deps.calls.record(call));
  } catch (cause) {
    console.error(`hob: a model call could not be counted: ${(cause as Error).message}`);
  }
}
