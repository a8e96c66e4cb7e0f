/**
 * The forms of a tool call written as text, and the markers that start them:
 * what the stream holds back (text_call_stream.ts) and the parser reads
 * (text_calls.ts). Loads nothing.
 */

/** The text forms recognised. */
export type TextCallForm = "hermes" | "python_tag" | "mistral" | "json" | "fenced_json";

/** The explicit markers, and the form each starts. */
export const CALL_MARKERS: ReadonlyMap<string, TextCallForm> = new Map([
  ["<tool_call>", "hermes"],
  ["<|python_tag|>", "python_tag"],
  ["[TOOL_CALLS]", "mistral"],
]);
