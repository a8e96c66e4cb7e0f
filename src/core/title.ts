/**
 * A conversation's title, written by the model from the first message while
 * the reply streams, so naming costs the user no time.
 */

import type { LlmPort } from "./ports.ts";

/** The system prompt of a title request (the test fakes recognise it). */
export const TITLE_PROMPT =
  "You name conversations. Answer with a title of at most six words and nothing else.";
/** Longest title kept. */
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
): Promise<string | null> {
  let text = "";
  try {
    for await (
      const event of llm.stream({
        model,
        system: TITLE_PROMPT,
        messages: [{
          role: "user",
          content: `Title this conversation. It begins:\n\n${message.slice(0, 2_000)}`,
        }],
        tools: [],
        max_output_tokens: 24,
        signal,
      })
    ) {
      if (event.type === "text") text += event.text;
      else if (event.type === "error") return null;
    }
  } catch {
    return null;
  }
  return cleanTitle(text);
}

/** The first line, without quotes, a "Title:" label or closing punctuation, at most 60 characters. */
export function cleanTitle(text: string): string | null {
  const unquote = (s: string) => s.replace(/^["'“”‘’*#\s]+|["'“”‘’*\s.]+$/g, "");
  const line = unquote(unquote(text.trim().split("\n")[0]).replace(/^(title|subject)\s*:\s*/i, ""))
    .replace(/\s+/g, " ");
  if (!line) return null;
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1).trimEnd()}…` : line;
}
