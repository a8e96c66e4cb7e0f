/**
 * A provider's stream with tool calls written as text turned into tool-call
 * events (text_calls.ts says which text counts). Text that may be call markup
 * is held back while it streams — from a marker at the start of a line, or
 * the whole reply while it starts like JSON — so markup never flashes on a
 * page that shows text as it comes; held text that turns out not to be a
 * call is let out as it was written. The parser (and its JSON repair) loads
 * only when a reply ends with held text, so starting hob costs nothing more.
 * Knows the LlmEvent stream, not the agent.
 */

import type { ChatMessage, LlmEvent, LlmRequest } from "../core/types.ts";
import { CALL_MARKERS } from "./text_call_markers.ts";

/** How a reply that may be a whole-reply JSON call starts. */
const JSON_STARTS = ["{", "[", "```"];
/** Fence languages a fenced call may carry; any other fence is let out at once. */
const CALL_FENCE = /^```(?:json)?[ \t]*$/i;

/**
 * Passes `events` on, with text-written calls to `request.tools` as
 * `tool_call` events and their text taken out. A reply with structured calls
 * is passed on as it is, and so is every reply of a request without tools.
 *
 * @example
 * ```ts
 * yield* withTextCalls(request, adapter.stream(name, request));
 * ```
 */
export async function* withTextCalls(
  request: LlmRequest,
  events: AsyncIterable<LlmEvent>,
): AsyncGenerator<LlmEvent> {
  if (request.tools.length === 0) {
    yield* events;
    return;
  }
  let shown = "";
  let held = "";
  let structured = false;
  for await (const event of events) {
    if (event.type === "text" && !structured) {
      held += event.text;
      const release = held.slice(0, releasable(shown, held));
      held = held.slice(release.length);
      shown += release;
      if (release) yield { type: "text", text: release };
      continue;
    }
    if (event.type === "tool_call") structured = true;
    if (event.type === "done" && held) {
      yield* await settle(request, shown, held);
      held = "";
    } else if (event.type !== "usage" && held) {
      // A structured call or an error: what was held was text after all.
      yield { type: "text", text: held };
      shown += held;
      held = "";
    }
    yield event;
  }
  if (held) yield { type: "text", text: held };
}

/** At the reply's end: the held text as calls (with the text before them), or as text. */
async function settle(request: LlmRequest, shown: string, held: string): Promise<LlmEvent[]> {
  const { parseTextCalls } = await import("./text_calls.ts");
  const parsed = parseTextCalls(shown + held, {
    offered: new Set(request.tools.map((tool) => tool.name)),
    quoted: quotedTexts(request),
  });
  // Text already shown cannot be taken back: calls must start in what was held.
  if (!parsed || parsed.visible.length < shown.trimEnd().length) {
    return [{ type: "text", text: held }];
  }
  const events: LlmEvent[] = [];
  const rest = parsed.visible.slice(shown.length);
  if (rest) events.push({ type: "text", text: rest });
  for (const call of parsed.calls) {
    const id = `text_call_${crypto.randomUUID().slice(0, 8)}`;
    events.push({ type: "tool_call", call: { id, name: call.name, arguments: call.arguments } });
  }
  return events;
}

/**
 * What the model read that it may be repeating: tool results and labelled
 * outside text, also in the tools' definitions (an MCP server's descriptions).
 */
function quotedTexts(request: LlmRequest): string[] {
  const texts = request.messages
    .filter((message: ChatMessage) =>
      message.role === "tool" || message.content.includes("<untrusted")
    )
    .map((message) => message.content);
  if (request.system.includes("<untrusted")) texts.push(request.system);
  for (const tool of request.tools) texts.push(...labelledStrings(tool));
  return texts;
}

/** The labelled strings anywhere in a value: a tool's description and its schema's texts. */
function labelledStrings(value: unknown): string[] {
  if (typeof value === "string") return value.includes("<untrusted") ? [value] : [];
  if (!value || typeof value !== "object") return [];
  return Object.values(value).flatMap(labelledStrings);
}

/**
 * How much of `held` can be shown now: all of it, unless the reply so far
 * may be a whole-reply JSON call, or a line in it starts (or may start) with
 * a call marker — then the text up to that line.
 */
function releasable(shown: string, held: string): number {
  if (!shown.trim() && mayBeWholeCall(held.trimStart())) return 0;
  let lineStart = shown === "" || shown.endsWith("\n") ? 0 : held.indexOf("\n") + 1;
  while (lineStart > 0 || (lineStart === 0 && (shown === "" || shown.endsWith("\n")))) {
    const rest = held.slice(lineStart);
    for (const marker of CALL_MARKERS.keys()) {
      if (rest.startsWith(marker) || marker.startsWith(rest)) return lineStart;
    }
    const next = held.indexOf("\n", lineStart);
    if (next < 0) break;
    lineStart = next + 1;
  }
  return held.length;
}

/** Whether a reply starting with `text` may yet turn out to be a whole-reply call. */
function mayBeWholeCall(text: string): boolean {
  if (text === "") return true;
  for (const marker of CALL_MARKERS.keys()) {
    if (text.startsWith(marker) || marker.startsWith(text)) return true;
  }
  if (!JSON_STARTS.some((start) => text.startsWith(start) || start.startsWith(text))) return false;
  // An array of calls holds objects: "[1] First…" is a list to show.
  if (text.startsWith("[")) return /^\[\s*(?:\{|$)/.test(text);
  if (!text.startsWith("```")) return true;
  // A fence in another language is code to show, not a call.
  const firstLine = text.split("\n")[0];
  return !text.includes("\n") || CALL_FENCE.test(firstLine);
}
