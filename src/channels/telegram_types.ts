/**
 * The part of Telegram's Bot API objects that hob reads: a message, its
 * files, where it came from when forwarded, what it replies to and quotes.
 * Types only; the field names and shapes are the Bot API's own.
 */

/** A user of the Bot API. */
export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name?: string;
  last_name?: string;
  username?: string;
}

/** A chat of the Bot API. */
export interface TelegramChat {
  id: number;
  type: string;
  title?: string;
  username?: string;
}

/** A file of the Bot API: what `getFile` takes, and what the message says of it. */
export interface TelegramFile {
  file_id: string;
  file_size?: number;
  file_name?: string;
  mime_type?: string;
}

/** Where a forwarded message (or one replied to in another chat) was first written. */
export type TelegramOrigin =
  | { type: "user"; date: number; sender_user: TelegramUser }
  | { type: "hidden_user"; date: number; sender_user_name: string }
  | { type: "chat"; date: number; sender_chat: TelegramChat; author_signature?: string }
  | {
    type: "channel";
    date: number;
    chat: TelegramChat;
    message_id: number;
    author_signature?: string;
  };

/** A formatting entity of a text, in UTF-16 code units. */
export interface TelegramEntity {
  type: string;
  offset: number;
  length: number;
}

/** A message of the Bot API, as far as hob reads it. */
export interface TelegramMessage {
  message_id: number;
  chat: TelegramChat;
  from?: TelegramUser;
  text?: string;
  entities?: TelegramEntity[];
  caption?: string;
  caption_entities?: TelegramEntity[];
  /** Where it was first written, when forwarded (Bot API 7.0 and later). */
  forward_origin?: TelegramOrigin;
  /** The same, as Bot API servers before 7.0 say it. */
  forward_from?: TelegramUser;
  forward_from_chat?: TelegramChat;
  forward_sender_name?: string;
  forward_date?: number;
  /** The message it answers, in the same chat. */
  reply_to_message?: TelegramMessage;
  /** The message it answers, in another chat (its text, if any, is in `quote`). */
  external_reply?: { origin: TelegramOrigin; chat?: TelegramChat };
  /** The part of the answered message it quotes. */
  quote?: { text: string; position: number; is_manual?: true };
  /** The inline bot that wrote it for the sender. */
  via_bot?: TelegramUser;
  /** The same photo in several sizes, the largest last. */
  photo?: (TelegramFile & { width: number; height: number })[];
  document?: TelegramFile;
  voice?: TelegramFile;
  audio?: TelegramFile;
  video?: TelegramFile;
}
