/**
 * One answer from the model, collected: a prompt (or a short conversation) in,
 * its text and any tool calls out, and the failure when it could not answer.
 * For the model's small side jobs — a title, a summary, a skill's question, the
 * doctor's probe — not the agent's streamed turn. Knows only the LlmPort; what
 * a failure means is the caller's to decide.
 */

import type { LlmPort } from "./ports.ts";
import type {
  CallPurpose,
  ChatMessage,
  ImageContent,
  LlmFailure,
  LlmRequest,
  ToolCall,
  ToolSpec,
} from "./types.ts";

/** What to ask the model. */
export interface CompletionRequest {
  model: string;
  system: string;
  /** The user's message, or the conversation so far. */
  prompt: string | ChatMessage[];
  /** Images sent with a string prompt. */
  images?: ImageContent[];
  /**
   * Tools the model may call.
   *
   * @default {[]}
   */
  tools?: ToolSpec[];
  /** Tokens the answer may use; the provider's default when unset. */
  maxOutputTokens?: number;
  /** Stops the answer; what came before it is kept. */
  signal?: AbortSignal;
  /** What the call is for, for the usage log. */
  purpose?: CallPurpose;
}

/** What the model answered. */
export interface Completion {
  /** Its text deltas, joined. */
  text: string;
  /** The tools it called, in order. */
  toolCalls: ToolCall[];
  /** Why it could not answer, or null when it did (or was stopped). */
  error: LlmFailure | null;
}

/**
 * Streams one answer from `llm` and collects it. Stops at the first `error`
 * event, which comes back in `error`; throws only what the stream throws.
 *
 * @example
 * ```ts
 * const { text, error } = await completeText(llm, {
 *   model: "ollama/llama3.2",
 *   system: "Answer in one word.",
 *   prompt: "What colour is the sky?",
 *   maxOutputTokens: 8,
 * });
 * if (!error) console.log(text); // "Blue"
 * ```
 */
export async function completeText(
  llm: LlmPort,
  request: CompletionRequest,
): Promise<Completion> {
  const completion: Completion = { text: "", toolCalls: [], error: null };
  for await (const event of llm.stream(llmRequest(request))) {
    if (event.type === "text") completion.text += event.text;
    else if (event.type === "tool_call") completion.toolCalls.push(event.call);
    else if (event.type === "error") {
      completion.error = event.error;
      break;
    }
  }
  return completion;
}

function llmRequest(request: CompletionRequest): LlmRequest {
  const { prompt, images } = request;
  const messages: ChatMessage[] = typeof prompt === "string"
    ? [{ role: "user", content: prompt, ...(images?.length ? { images } : {}) }]
    : prompt;
  return {
    model: request.model,
    system: request.system,
    messages,
    tools: request.tools ?? [],
    ...(request.maxOutputTokens === undefined
      ? {}
      : { max_output_tokens: request.maxOutputTokens }),
    signal: request.signal,
    ...(request.purpose ? { purpose: request.purpose } : {}),
  };
}
