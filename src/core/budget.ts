/**
 * Fitting a conversation into a model's context window. Token counts are
 * estimated, not exact: no tokenizer is shipped for every model, and a
 * conservative estimate only needs to keep requests under the limit.
 */

import type { ChatMessage, ToolSpec } from "./types.ts";

/** Characters per token for English prose and code; a safe middle for most tokenizers. */
const CHARS_PER_TOKEN = 4;
/** Per-message framing (role markers, separators) that every chat format adds. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Estimates the tokens a text costs.
 *
 * @example
 * ```ts
 * estimateTokens("hello world"); // 3
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimates the tokens one message costs, tool calls included. */
export function estimateMessageTokens(message: ChatMessage): number {
  let chars = message.content.length;
  if (message.role === "assistant" && message.tool_calls) {
    for (const call of message.tool_calls) {
      chars += call.name.length + call.arguments.length + call.id.length;
    }
  }
  if (message.role === "tool") chars += message.tool_call_id.length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/** Estimates the tokens the tool schemas cost in a request. */
export function estimateToolTokens(tools: ToolSpec[]): number {
  let total = 0;
  for (const tool of tools) {
    total += estimateTokens(
      tool.name + tool.description + JSON.stringify(tool.parameters),
    );
  }
  return total;
}

/** What {@linkcode fitHistory} kept and how many messages it dropped. */
export interface FittedHistory {
  messages: ChatMessage[];
  dropped: number;
}

/**
 * Drops the oldest turns until the history fits `budgetTokens`. A turn starts at
 * a user message, so what is kept always starts with the user and never splits a
 * tool call from its result. The newest turn is always kept whole.
 *
 * @example
 * ```ts
 * const { messages, dropped } = fitHistory(history, 8_000);
 * ```
 */
export function fitHistory(
  history: ChatMessage[],
  budgetTokens: number,
): FittedHistory {
  // Indexes where turns start, newest last.
  const starts: number[] = [];
  for (let i = 0; i < history.length; i++) {
    if (history[i].role === "user") starts.push(i);
  }
  if (starts.length === 0) return { messages: [], dropped: history.length };

  let used = 0;
  let keepFrom = history.length;
  for (let t = starts.length - 1; t >= 0; t--) {
    const end = keepFrom;
    let cost = 0;
    for (let i = starts[t]; i < end; i++) {
      cost += estimateMessageTokens(history[i]);
    }
    const newest = t === starts.length - 1;
    if (!newest && used + cost > budgetTokens) break;
    used += cost;
    keepFrom = starts[t];
  }
  return { messages: history.slice(keepFrom), dropped: keepFrom };
}
