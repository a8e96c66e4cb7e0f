/**
 * A conversation's title: the first line of its first message at once, then
 * one written by the model while the reply streams, so naming costs the user
 * no time.
 */

import { completeText } from "./complete.ts";
import type { LlmPort } from "./ports.ts";

/** The system prompt of a title request (the test fakes recognise it). */
export const TITLE_PROMPT =
  "You name conversations. Answer with a title of at most six words and nothing else.";
/** Longest title kept, the model's or one taken from the first message: a sidebar line. */
const MAX_CHARS = 60;

/**
 * Asks `model` for a short title for a conversation that begins with
 * `message`. Resolves with null when the model fails or answers nothing usable.
 *
 * @example
 * ```ts
 * await nameConversation(llm, "ollama/llama3.2", "How do I descale a kettle?"); // "Descaling a kettle"
 * ```
 */
export async function nameConversation(
  llm: LlmPort,
  model: string,
  message: string,
  signal?: AbortSignal,
  conversationId?: string,
): Promise<string | null> {
  try {
    const { text, error } = await completeText(llm, {
      model,
      system: TITLE_PROMPT,
      prompt: `Title this conversation. It begins:\n\n${message.slice(0, 2_000)}`,
      maxOutputTokens: 24,
      signal,
      purpose: { kind: "title", conversation_id: conversationId },
    });
    return error ? null : cleanTitle(text);
  } catch {
    return null;
  }
}

/** The first line, without quotes, a "Title:" label or closing punctuation, at most 60 characters. */
export function cleanTitle(text: string): string | null {
  const unquote = (s: string) => s.replace(/^["'“”‘’*#\s]+|["'“”‘’*\s.]+$/g, "");
  const line = unquote(unquote(text.trim().split("\n")[0]).replace(/^(title|subject)\s*:\s*/i, ""))
    .replace(/\s+/g, " ");
  if (!line) return null;
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1).trimEnd()}…` : line;
}

/**
 * A title from the first message, set at once while the model names the
 * conversation: its first line, cut at a word near the limit.
 *
 * @example
 * ```ts
 * titleFrom("How do I descale a kettle?\nIt is old."); // "How do I descale a kettle?"
 * ```
 */
export function titleFrom(message: string): string {
  const line = message.trim().split("\n")[0].replace(/\s+/g, " ");
  if (line.length <= MAX_CHARS) return line || "New conversation";
  const cut = line.slice(0, MAX_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${space > 20 ? cut.slice(0, space) : cut}…`;
}
