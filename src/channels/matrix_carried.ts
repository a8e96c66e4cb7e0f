/**
 * Whose words a Matrix message holds. A reply names the event it answers in
 * `m.relates_to` → `m.in_reply_to`, and older clients also quote that event
 * at the start of `body` (the reply fallback, removed from the spec in v1.13):
 * the fallback is stripped as the spec says — the leading lines that start
 * with `> ` — and the answered event itself is read instead, as its sender's.
 * `>` blocks elsewhere in the body are quotes: their author's, not the
 * sender's. An edit (`m.replace`) is not a new message, so it is not one to
 * answer. Knows nothing of the hub or of trust: it only sorts.
 */

import { type CarriedText, SOMEONE_QUOTED } from "./port.ts";

/** The content of a room message, as far as hob reads it. */
export interface MessageContent {
  msgtype?: string;
  body?: string;
  "m.mentions"?: { user_ids?: string[] };
  "m.relates_to"?: {
    rel_type?: string;
    event_id?: string;
    is_falling_back?: boolean;
    "m.in_reply_to"?: { event_id?: string };
  };
  /** An edit's replacement content. */
  "m.new_content"?: { body?: string };
}

/** A message's own words and its quotes, and the event it answers (to read as its sender's). */
export interface MatrixWords {
  text: string;
  carried: CarriedText[];
  /** The event the message answers, if it is a reply. */
  replyTo: string | null;
  /** The reply fallback that was stripped: the answered event as the sender's client quoted it. */
  fallback: string;
}

/** A line of a quote, or of a reply fallback (`> `, or a bare `>` for an empty line). */
const QUOTE_LINE = /^>(?: |$)/;

/**
 * Whether an event is an edit of an earlier one (`m.replace`): hob answers a
 * message once, and an edit's text is not a new message.
 *
 * @example
 * ```ts
 * isEdit({ body: "* fixed", "m.relates_to": { rel_type: "m.replace", event_id: "$a" } }); // true
 * ```
 */
export function isEdit(content: MessageContent): boolean {
  return content["m.relates_to"]?.rel_type === "m.replace" ||
    content["m.new_content"] !== undefined;
}

/**
 * Sorts a message's body: the reply fallback stripped (when it is a reply),
 * `>` blocks carried as quotes, the rest the sender's own words.
 *
 * @example
 * ```ts
 * matrixWords({
 *   body: "> <@eve:x> You won!\n\nIs this true?",
 *   "m.relates_to": { "m.in_reply_to": { event_id: "$e" } },
 * });
 * // { text: "Is this true?", carried: [], replyTo: "$e", fallback: "<@eve:x> You won!" }
 * ```
 */
export function matrixWords(content: MessageContent): MatrixWords {
  const replyTo = content["m.relates_to"]?.["m.in_reply_to"]?.event_id ?? null;
  const { body, fallback } = replyTo
    ? withoutReplyFallback(content.body ?? "")
    : { body: content.body ?? "", fallback: "" };
  const { own, quoted } = splitQuoted(body);
  return {
    text: own,
    carried: quoted.map((text) => ({ kind: "quoted", author: SOMEONE_QUOTED, text })),
    replyTo,
    fallback,
  };
}

/**
 * A body without its reply fallback, as the spec says to strip it: the lines
 * from the start that begin with `> `, and the empty line after them; the
 * fallback is returned without its prefixes.
 *
 * @example
 * ```ts
 * withoutReplyFallback("> <@eve:x> hi\n> there\n\nhello");
 * // { body: "hello", fallback: "<@eve:x> hi\nthere" }
 * ```
 */
export function withoutReplyFallback(body: string): { body: string; fallback: string } {
  const lines = body.replace(/\r\n/g, "\n").split("\n");
  let end = 0;
  while (end < lines.length && QUOTE_LINE.test(lines[end])) end++;
  const fallback = lines.slice(0, end).map(unquote).join("\n").trim();
  if (end < lines.length && !lines[end].trim()) end++;
  return { body: lines.slice(end).join("\n"), fallback };
}

/** The text of an answered event, as its sender wrote it (its own fallback stripped). */
export function answeredText(content: MessageContent): string {
  const body = content["m.new_content"]?.body ?? content.body ?? "";
  return content["m.relates_to"]?.["m.in_reply_to"] ? withoutReplyFallback(body).body : body;
}

/** A text's own lines, and its `>` blocks (one level of quoting taken off). */
function splitQuoted(text: string): { own: string; quoted: string[] } {
  const own: string[] = [];
  const quoted: string[][] = [];
  let inQuote = false;
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    const quote = QUOTE_LINE.test(line);
    if (quote && !inQuote) quoted.push([]);
    if (quote) quoted.at(-1)!.push(unquote(line));
    else own.push(line);
    inQuote = quote;
  }
  return {
    own: own.join("\n").replace(/\n{3,}/g, "\n\n").trim(),
    quoted: quoted.map((lines) => lines.join("\n").trim()).filter(Boolean),
  };
}

function unquote(line: string): string {
  return line.replace(/^> ?/, "");
}
