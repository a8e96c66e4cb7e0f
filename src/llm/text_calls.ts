/**
 * Tool calls a model wrote as text instead of the provider's structured calls:
 * the chat-template habits of the model families people run locally. Pure:
 * a finished reply in, its calls and the text left to show out. It lives in
 * src/llm because it is about how models write, beside the adapters, and the
 * router applies it to every provider's stream (text_call_stream.ts) — the
 * core never sees the markup. Must not know the registry or run anything.
 */

import { jsonrepair } from "jsonrepair";
import { CALL_MARKERS, type TextCallForm } from "./text_call_markers.ts";

/** A tool call recognised in a reply's text; `arguments` is JSON text, as a provider's would be. */
export interface TextCall {
  name: string;
  arguments: string;
}

/** What a reply holds once its call text is taken out. */
export interface TextCalls {
  /** The text before the calls: what the user reads (may be empty). */
  visible: string;
  calls: TextCall[];
  /** The form the calls were written in. */
  form: TextCallForm;
}

/** What {@linkcode parseTextCalls} needs to know of the request. */
export interface TextCallOptions {
  /** The tools offered with the request. */
  offered: ReadonlySet<string>;
  /** Texts the model read that it may be repeating: tool results, labelled outside text. */
  quoted?: readonly string[];
}

/** Tokens some servers leave at the end of a Llama reply. */
const END_TOKENS = /(?:<\|eom_id\|>|<\|eot_id\|>|<\|im_end\|>|<\/s>)\s*$/;

/**
 * The tool calls written as text in `reply`, or null when it holds none. Only
 * conservative forms count, so that a reply that shows or quotes call text is
 * never taken for a call:
 *
 * 1. An explicit marker (`<tool_call>`, `<|python_tag|>`, `[TOOL_CALLS]`)
 *    counts only at the start of a line, outside a code fence (a blockquote's
 *    `> ` puts it off the line start), and only when the calls run to the end
 *    of the reply: text after them means they were quoted. Prose before them
 *    is the visible reply.
 * 2. Unmarked JSON — `{"name": …, "parameters"|"arguments": …}`, an array of
 *    those, or one fenced ```json block of it — counts only as the whole reply,
 *    and only when every call names an offered tool (a user may ask for JSON
 *    that happens to have a `name`).
 * 3. A marked call may name a tool that was not offered: it is returned, and
 *    the agent refuses it with an error the model reads, never running it.
 * 4. A call whose text appears in `quoted` (a tool result or labelled outside
 *    text the model read) is the model repeating it: none of the reply counts.
 * 5. Arguments are an object or a string of JSON; near-JSON (trailing commas,
 *    single quotes, unquoted keys) is repaired. What cannot be repaired is
 *    passed on as written, for the registry's validation to refuse.
 *
 * @example
 * ```ts
 * parseTextCalls('<tool_call>{"name": "get_time", "arguments": {}}</tool_call>', {
 *   offered: new Set(["get_time"]),
 * }); // { visible: "", calls: [{ name: "get_time", arguments: "{}" }], form: "hermes" }
 * ```
 */
export function parseTextCalls(reply: string, options: TextCallOptions): TextCalls | null {
  const found = markedCalls(reply) ?? wholeReplyCalls(reply, options.offered);
  if (!found || found.calls.length === 0) return null;
  if (repeated(found.raw, options.quoted ?? [])) return null;
  return { visible: found.visible, calls: found.calls, form: found.form };
}

/** Calls found, with the raw text they were read from. */
interface Found extends TextCalls {
  raw: string;
}

/** Rule 1: the first marker at a line start, outside a fence, with only calls after it. */
function markedCalls(reply: string): Found | null {
  const start = firstMarker(reply);
  if (!start) return null;
  const raw = reply.slice(start.index).replace(END_TOKENS, "").trim();
  const calls = start.form === "hermes"
    ? hermesCalls(raw)
    : start.form === "python_tag"
    ? pythonTagCalls(raw)
    : mistralCalls(raw);
  if (!calls) return null;
  return { visible: reply.slice(0, start.index).trimEnd(), calls, form: start.form, raw };
}

/** Where the first marker at the start of a line outside a code fence is. */
function firstMarker(reply: string): { index: number; form: TextCallForm } | null {
  let inFence = false;
  let index = 0;
  for (const line of reply.split("\n")) {
    if (line.startsWith("```")) inFence = !inFence;
    else if (!inFence) {
      for (const [marker, form] of CALL_MARKERS) {
        if (line.startsWith(marker)) return { index, form };
      }
    }
    index += line.length + 1;
  }
  return null;
}

/** `<tool_call>{…}</tool_call>` blocks, one after another to the end (the last may be unclosed). */
function hermesCalls(raw: string): TextCall[] | null {
  const calls: TextCall[] = [];
  let rest = raw;
  while (rest) {
    if (!rest.startsWith("<tool_call>")) return null;
    const close = rest.indexOf("</tool_call>");
    const body = rest.slice("<tool_call>".length, close < 0 ? undefined : close);
    const call = callOf(parseLoose(body));
    if (!call) return null;
    calls.push(call);
    rest = close < 0 ? "" : rest.slice(close + "</tool_call>".length).trim();
  }
  return calls;
}

/** `<|python_tag|>` then JSON calls (one, an array, or several split by `;`), or `name.call(k="v")`. */
function pythonTagCalls(raw: string): TextCall[] | null {
  const body = raw.slice("<|python_tag|>".length).trim();
  const whole = callsOf(parseLoose(body));
  if (whole) return whole;
  const parts = body.split(/;\s*(?=[{\w])/).map((part) => part.trim()).filter(Boolean);
  const calls = parts.map((part) => callOf(parseLoose(part)) ?? pythonCall(part));
  return calls.every((call) => call !== null) && calls.length > 0 ? calls as TextCall[] : null;
}

/** `name.call(a="x", b=2)` or `name(a="x")`: Llama's built-in tool style. */
function pythonCall(text: string): TextCall | null {
  const match = /^([a-z][a-z0-9_]*)(?:\.call)?\((.*)\)$/s.exec(text);
  if (!match) return null;
  const args: Record<string, unknown> = {};
  const pair = /\s*([A-Za-z_]\w*)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]*?)\s*(?:,|$)/y;
  const list = match[2].trim();
  for (let at = 0; at < list.length; at = pair.lastIndex) {
    pair.lastIndex = at;
    const found = pair.exec(list);
    if (!found || found[0].length === 0) return null;
    args[found[1]] = pythonValue(found[2].trim());
  }
  return { name: match[1], arguments: JSON.stringify(args) };
}

/** A Python literal as JSON would have it. */
function pythonValue(text: string): unknown {
  if (/^(['"]).*\1$/s.test(text)) return text.slice(1, -1).replace(/\\(.)/g, "$1");
  if (text === "True" || text === "False") return text === "True";
  if (text === "None") return null;
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

/** `[TOOL_CALLS] [{…}, …]` (v0.3) or `[TOOL_CALLS]name[ARGS]{…}` repeated (v11 and later). */
function mistralCalls(raw: string): TextCall[] | null {
  const body = raw.slice("[TOOL_CALLS]".length).trim();
  if (body.startsWith("[") || body.startsWith("{")) return callsOf(parseLoose(body));
  const calls: TextCall[] = [];
  for (const part of body.split("[TOOL_CALLS]")) {
    const match = /^\s*([a-z][a-z0-9_]*)\s*\[ARGS\]([\s\S]*)$/.exec(part);
    if (!match) return null;
    calls.push({ name: match[1], arguments: argumentsText(match[2].trim()) });
  }
  return calls.length > 0 ? calls : null;
}

/** Rule 2: the whole reply is a JSON call (or several), bare or in one fence, naming offered tools. */
function wholeReplyCalls(reply: string, offered: ReadonlySet<string>): Found | null {
  const trimmed = reply.replace(END_TOKENS, "").trim();
  const fenced = /^```(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  const raw = fenced ? fenced[1].trim() : trimmed;
  if (!raw.startsWith("{") && !raw.startsWith("[")) return null;
  const calls = callsOf(parseLoose(raw), true);
  if (!calls || !calls.every((call) => offered.has(call.name))) return null;
  return { visible: "", calls, form: fenced ? "fenced_json" : "json", raw };
}

/** One call object or an array of them; `strict` also refuses keys a call does not have. */
function callsOf(value: unknown, strict = false): TextCall[] | null {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return null;
  const calls = list.map((item) => callOf(item, strict));
  return calls.every((call) => call !== null) ? calls as TextCall[] : null;
}

/** Keys a call object may carry besides its name and arguments. */
const CALL_KEYS = new Set(["name", "arguments", "parameters", "type", "id"]);

/** `{"name": …, "arguments"|"parameters": …}` as a call, or null. */
function callOf(value: unknown, strict = false): TextCall | null {
  if (!isObject(value)) return null;
  const { name } = value;
  if (typeof name !== "string" || !/^[A-Za-z][\w.-]{0,63}$/.test(name)) return null;
  if (strict && Object.keys(value).some((key) => !CALL_KEYS.has(key))) return null;
  const args = value.arguments ?? value.parameters ?? {};
  if (typeof args === "string") return { name, arguments: argumentsText(args) };
  if (!isObject(args)) return null;
  return { name, arguments: JSON.stringify(args) };
}

/** Arguments written as text: repaired to JSON when they can be, else left as written. */
function argumentsText(text: string): string {
  const value = parseLoose(text);
  return isObject(value) ? JSON.stringify(value) : text;
}

/** JSON, or near-JSON repaired; undefined when neither. */
function parseLoose(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      return JSON.parse(jsonrepair(trimmed));
    } catch {
      return undefined;
    }
  }
}

/** Rule 4: the call text (whitespace aside) is in something the model read. */
function repeated(raw: string, quoted: readonly string[]): boolean {
  const squeeze = (text: string) => text.replace(/\s+/g, "");
  const calls = squeeze(raw);
  // The markers aside: a document may hold just the JSON, or the JSON with its markup.
  const bodies = [calls, ...calls.split(/<\/?tool_call>|<\|python_tag\|>|\[TOOL_CALLS\]/)]
    .filter((body) => body.length >= 8);
  return quoted.some((text) => {
    const read = squeeze(text);
    return bodies.some((body) => read.includes(body));
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
