/**
 * Whose words a Telegram message holds, from the Bot API's own fields: a
 * forwarded message (`forward_origin`, or the `forward_*` fields of servers
 * before Bot API 7.0) is wholly its author's; a message sent through an
 * inline bot (`via_bot`) is that bot's; what it replies to
 * (`reply_to_message`, `external_reply`) and quotes (`quote`, blockquotes
 * the sender formatted) is its author's. Only the rest is the sender's own.
 * Knows nothing of the hub or of trust: it only sorts.
 */

import { type CarriedFrom, type CarriedText, SOMEONE_QUOTED } from "./port.ts";
import type {
  TelegramChat,
  TelegramEntity,
  TelegramMessage,
  TelegramOrigin,
  TelegramUser,
} from "./telegram_types.ts";

/** A message's words, sorted. */
export interface TelegramWords {
  /** What the sender wrote themselves. */
  text: string;
  /** What they passed on, quoted or answered. */
  carried: CarriedText[];
  /** Set when the whole message is someone else's: its files are that author's too. */
  passedOn: CarriedFrom | null;
}

/** How hob is named as the author of a message of its own that the sender quotes. */
const HOB_AUTHOR = "hob itself (an earlier message of its own)";
/** Entity types that mark a quote in the text. */
const BLOCKQUOTES = new Set(["blockquote", "expandable_blockquote"]);

/**
 * Sorts a message's words: the sender's own, and what it carries. `selfId`
 * is hob's own user id: a message of hob's that the sender answers is
 * already in the conversation, so it is not repeated; a quote of it is carried.
 *
 * @example
 * ```ts
 * telegramWords({
 *   message_id: 1, chat: { id: 42, type: "private" }, from: { id: 42, is_bot: false },
 *   text: "You won!", forward_origin: { type: "hidden_user", date: 0, sender_user_name: "Eve" },
 * }, "999");
 * // { text: "", carried: [{ kind: "forwarded", author: "Eve (hidden)", text: "You won!" }], passedOn: … }
 * ```
 */
export function telegramWords(message: TelegramMessage, selfId: string): TelegramWords {
  const written = message.text ?? message.caption ?? "";
  const entities = (message.text !== undefined ? message.entities : message.caption_entities) ??
    [];
  const carried: CarriedText[] = [];
  const replied = repliedTo(message, selfId);
  if (replied) carried.push(replied);
  const passedOn = forwardedFrom(message) ?? inlineBot(message, selfId);
  if (passedOn) {
    if (written.trim()) carried.push({ ...passedOn, text: written });
    return { text: "", carried, passedOn };
  }
  const { own, quoted } = withoutBlockquotes(written, entities);
  for (const text of quoted) carried.push({ kind: "quoted", author: SOMEONE_QUOTED, text });
  return { text: own, carried, passedOn: null };
}

/** Whose a forwarded message is; null when it is not forwarded, or forwards the sender's own. */
function forwardedFrom(message: TelegramMessage): CarriedFrom | null {
  const sender = message.from?.id;
  const origin = message.forward_origin;
  if (origin) {
    if (origin.type === "user" && origin.sender_user.id === sender) return null;
    return { kind: "forwarded", author: originName(origin) };
  }
  // What Bot API servers before 7.0 send (a local server may be one).
  if (message.forward_from) {
    if (message.forward_from.id === sender) return null;
    return { kind: "forwarded", author: userName(message.forward_from) };
  }
  if (message.forward_from_chat) {
    return { kind: "forwarded", author: chatName(message.forward_from_chat) };
  }
  if (message.forward_sender_name) {
    return { kind: "forwarded", author: `${message.forward_sender_name} (hidden)` };
  }
  if (message.forward_date !== undefined) return { kind: "forwarded", author: "someone" };
  return null;
}

/** Whose a message an inline bot wrote is (not hob's own buttons: hob sends no inline results). */
function inlineBot(message: TelegramMessage, selfId: string): CarriedFrom | null {
  const bot = message.via_bot;
  if (!bot || String(bot.id) === selfId) return null;
  return { kind: "inline_bot", author: userName(bot) };
}

/** What the message answers or quotes, as its author's; null for nothing, or the sender's own. */
function repliedTo(message: TelegramMessage, selfId: string): CarriedText | null {
  const reply = message.reply_to_message;
  const quote = message.quote?.text;
  let author: string;
  let whole = "";
  if (reply) {
    const forwarded = forwardedFrom(reply);
    const from = reply.from?.id;
    if (!forwarded && from === message.from?.id) return null;
    const hob = !forwarded && String(from) === selfId;
    // hob's own message is in the conversation already, with its provenance: not repeated.
    if (hob && !quote) return null;
    author = hob ? HOB_AUTHOR : forwarded?.author ??
      (reply.from ? userName(reply.from) : chatName(reply.chat));
    whole = reply.text ?? reply.caption ?? "";
  } else if (message.external_reply) {
    const origin = message.external_reply.origin;
    if (origin.type === "user" && origin.sender_user.id === message.from?.id) return null;
    author = originName(origin);
  } else return null;
  if (quote?.trim()) return { kind: "quoted", author, text: quote };
  return whole.trim() ? { kind: "replied", author, text: whole } : null;
}

/** The text without the blockquotes the sender formatted, and those blockquotes. */
function withoutBlockquotes(
  text: string,
  entities: TelegramEntity[],
): { own: string; quoted: string[] } {
  const quotes = entities.filter((entity) => BLOCKQUOTES.has(entity.type))
    .sort((a, b) => a.offset - b.offset);
  const own: string[] = [];
  const quoted: string[] = [];
  let from = 0;
  // Offsets are UTF-16 code units, as JavaScript's strings count.
  for (const quote of quotes) {
    if (quote.offset < from) continue;
    own.push(text.slice(from, quote.offset));
    quoted.push(text.slice(quote.offset, quote.offset + quote.length));
    from = quote.offset + quote.length;
  }
  own.push(text.slice(from));
  return {
    own: own.map((piece) => piece.trim()).filter(Boolean).join("\n\n"),
    quoted: quoted.filter((piece) => piece.trim()),
  };
}

/** How the Bot API names where a message was first written. */
function originName(origin: TelegramOrigin): string {
  switch (origin.type) {
    case "user":
      return userName(origin.sender_user);
    case "hidden_user":
      return `${origin.sender_user_name} (hidden)`;
    case "chat":
      return signed(chatName(origin.sender_chat), origin.author_signature);
    case "channel":
      return signed(chatName(origin.chat), origin.author_signature);
  }
}

function userName(user: TelegramUser): string {
  const name = user.username
    ? `@${user.username}`
    : [user.first_name, user.last_name].filter(Boolean).join(" ");
  return `${name || "someone"} (${user.id})`;
}

function chatName(chat: TelegramChat): string {
  const name = chat.username ? `@${chat.username}` : chat.title;
  return `${name || "a chat"} (${chat.id})`;
}

function signed(name: string, signature: string | undefined): string {
  return signature ? `${signature} in ${name}` : name;
}
