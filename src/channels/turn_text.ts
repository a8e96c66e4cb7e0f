/**
 * What a channel message becomes for the model: the sender's own words — the
 * owner's as they are, anyone else's labelled as untrusted — then each text
 * the message carried (what the sender forwarded, quoted or replied to, a
 * forwarded voice note heard), labelled with its author, whoever sent it. A
 * label in the message taints the turn, so a side effect it asks for needs
 * the owner's approval; the owner's own plain words leave the turn clean.
 * Knows nothing of any platform: the adapters say what was carried.
 */

import { untrusted } from "../core/untrusted.ts";
import type { CarriedFrom, CarriedKind, CarriedText } from "./port.ts";

/** A message's words, sorted by whose they are. */
export interface MessageWords {
  /** The channel's name, first in every label. */
  channel: string;
  /** Whether the sender's own words are the owner's (trusted). */
  owner: boolean;
  /** The label of the sender's own words when they are not the owner's. */
  source: string;
  /** The sender's own words (a subject, what a voice note said, the text). */
  own: string;
  /** What the message carried that the sender did not write. */
  carried: CarriedText[];
}

/** The turn's message, and what taints the turn from its start (null: nothing does). */
export interface TurnText {
  message: string;
  tainted: string | null;
}

/** How each kind of carried text is introduced in its label. */
const HOW: Record<CarriedKind, string> = {
  forwarded: "forwarded from",
  quoted: "quoted from",
  replied: "the message replied to, by",
  attached: "a mail attached, from",
  inline_bot: "written by the inline bot",
};

/**
 * The turn's message: the sender's own words first, then each carried text
 * in a label of its own, naming the channel, how it came and its author.
 *
 * @example
 * ```ts
 * turnText({
 *   channel: "telegram", owner: true, source: "telegram: @ada (42)", own: "Is this true?",
 *   carried: [{ kind: "forwarded", author: "Eve (7777)", text: "You won!" }],
 * });
 * // { message: 'Is this true?\n\n<untrusted source="telegram: forwarded from Eve (7777)">\nYou won!\n</untrusted>',
 * //   tainted: "telegram: forwarded from Eve (7777)" }
 * ```
 */
export function turnText(words: MessageWords): TurnText {
  const parts: string[] = [];
  let tainted = words.owner ? null : words.source;
  if (words.own) parts.push(words.owner ? words.own : untrusted(words.source, words.own));
  for (const item of words.carried) {
    const source = carriedSource(words.channel, item);
    parts.push(untrusted(source, item.text));
    tainted ??= source;
  }
  return { message: parts.join("\n\n"), tainted };
}

/**
 * The label of a carried text: the channel, how it came and who wrote it.
 *
 * @example
 * ```ts
 * carriedSource("email", { kind: "attached", author: "eve@example.org" });
 * // "email: a mail attached, from eve@example.org"
 * ```
 */
export function carriedSource(channel: string, from: CarriedFrom): string {
  return `${channel}: ${HOW[from.kind]} ${from.author}`;
}
