/**
 * The channel port: what hob needs of a messaging platform to hold
 * conversations on it. Every platform hob speaks — Telegram's Bot API, IMAP
 * and SMTP, Matrix's client-server API — is a stream of messages read from a
 * cursor, and a way to send text into a chat; the hub (hub.ts) does the rest
 * once for all of them: who may talk, loop guards, conversations, turns,
 * watchdog and state.
 */

/**
 * A file sent with a message (a photo, a document, a voice note): fetched
 * only when the message is answered, never for a stranger's.
 */
export interface InboundFile {
  /** Its name (the sender's, or made from its kind: `photo.jpg`, `voice.ogg`). */
  name: string;
  /** Its size in bytes, when the platform says. */
  size?: number;
  /** A voice note: what the sender said aloud, heard as their words when speech is set up. */
  voice?: boolean;
  /** Downloads it. */
  fetch(signal: AbortSignal): Promise<Uint8Array<ArrayBuffer>>;
  /**
   * Set when someone else made the file (a forwarded voice note): what it
   * says is that author's, never the sender's own words.
   */
  from?: CarriedFrom;
}

/** How text the sender did not write came with their message. */
export type CarriedKind =
  /** Passed on whole (Telegram's forward, a forwarded mail). */
  | "forwarded"
  /** Quoted in part (a quote, a `>` block, a mail's quoted text). */
  | "quoted"
  /** The message the sender answered. */
  | "replied"
  /** A whole mail attached (`message/rfc822`). */
  | "attached"
  /** Written by an inline bot the sender used (Telegram's `via_bot`). */
  | "inline_bot";

/** Whose text something is, when the sender only passed it on. */
export interface CarriedFrom {
  kind: CarriedKind;
  /**
   * Who wrote it, as the platform names them ("Eve (7777)", "eve@example.org",
   * "@eve:example.org"); names are anyone's choice, so this is only a label.
   */
  author: string;
}

/** The author of a quote whose author the platform does not say: not the sender. */
export const SOMEONE_QUOTED = "someone the sender quoted";

/**
 * Text a message carries that its sender did not write: what they
 * forwarded, quoted or replied to. Each adapter fills these from the
 * platform's own structured fields; the hub hands them to the model labelled
 * as their author's (untrusted), after the sender's own words.
 */
export interface CarriedText extends CarriedFrom {
  text: string;
}

/** A message a platform delivered. Every text in it is the sender's, so untrusted. */
export interface InboundMessage {
  /** The platform's id of the message, unique within the channel: answered once. */
  id: string;
  /** Where a reply goes (a Telegram chat, an email thread, a Matrix room). */
  chatId: string;
  /** Who wrote it, as `allow_from` names them (a numeric Telegram id, an address). */
  senderId: string;
  /** How the platform shows the sender (untrusted: anyone picks their own name). */
  senderName: string;
  /**
   * What the sender wrote themselves: never what they forwarded, quoted or
   * replied to (those are in `carried`). Empty for a message that is wholly
   * forwarded.
   */
  text: string;
  /** What the message carries that the sender did not write, in the order it came. */
  carried: CarriedText[];
  /** A mail's subject, where the platform has one: the model reads it before the text. */
  subject?: string;
  /** Files that came with it. */
  files: InboundFile[];
  /**
   * Whether the platform vouches that the sender is who `senderId` says:
   * always on Telegram; for email, only when the receiving server's
   * authentication results passed. Unverified words are never the owner's.
   */
  verified: boolean;
  /** Whether the platform says the sender is a bot (bots are never answered). */
  fromBot: boolean;
  /**
   * Whether it names hob, where the platform says (Matrix's mentions); else
   * the hub looks for hob's name in the text.
   */
  mentioned?: boolean;
  /** Whether the message is in a chat with hob alone (a DM), or in a group. */
  direct: boolean;
}

/** What one read of a channel's stream returned. */
export interface Delivery {
  messages: InboundMessage[];
  /** Where the next read starts; stored once these messages are recorded. */
  cursor: string | null;
}

/** Who hob is on the platform, learnt when it connects. */
export interface ChannelIdentity {
  /** hob's own id there: its own messages are never answered. */
  selfId: string;
  /** How the platform names it (a bot's @username), for status. */
  name: string;
}

/** Options for sending one reply. */
export interface SendOptions {
  /** The message this answers, for platforms that thread replies. */
  replyTo?: string;
  /**
   * Answers offered as buttons where the platform has them (Telegram's
   * inline keyboard): pressing one comes back as a message from the presser
   * whose text is its `reply`, exactly as if they had typed it.
   */
  choices?: { label: string; reply: string }[];
}

/**
 * A messaging platform, as the hub drives it. Methods throw on failure; the
 * hub counts, logs and retries with back-off.
 */
export interface ChannelAdapter {
  /** The channel's name in config, status and conversations: `telegram`, `email`, `matrix`. */
  readonly name: string;
  /** Longest a `read` may wait for news before it returns empty. */
  readonly pollMs: number;
  /** Checks the credentials and learns hob's own identity. */
  connect(signal: AbortSignal): Promise<ChannelIdentity>;
  /** Waits (up to `pollMs`) for what came after `cursor` (null: from what the platform keeps). */
  read(cursor: string | null, signal: AbortSignal): Promise<Delivery>;
  /** Sends `text` (Markdown, as the model writes it) to a chat, in as many messages as it takes. */
  send(chatId: string, text: string, options?: SendOptions): Promise<void>;
  /** Shows that hob is writing (a no-op where the platform has no such thing). */
  typing(chatId: string): Promise<void>;
  /**
   * Sends a voice note (Ogg/Opus), where the platform has them: a spoken
   * message is answered by voice too.
   */
  sendVoice?(chatId: string, audio: Uint8Array, options?: SendOptions): Promise<void>;
}
