/**
 * What the channels (Telegram, email, Matrix) keep in hob.db: which
 * conversation each chat is, every message a channel delivered (so a restart
 * answers none twice), where each channel's stream resumes, and the strangers
 * who wrote without being allowed. Knows the tables, nothing of any platform.
 */

import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import type { SqliteKv } from "./kv.ts";
import { timestamp } from "./timestamp.ts";
import { transaction, withWriteLock } from "./transaction.ts";

/** Longest excerpt kept of a stranger's last message. */
const EXCERPT_CHARS = 200;
/** How long a delivered message's id is kept to refuse it again. */
const INBOUND_KEEP_DAYS = 30;

/** A sender no one allowed, as the owner sees them in `hob channels pending`. */
export interface Stranger {
  channel: string;
  sender_id: string;
  name: string;
  chat_id: string;
  /** The start of their last message (untrusted text, shown as such). */
  excerpt: string;
  messages: number;
  first_seen: string;
  last_seen: string;
}

/** A chat on a channel and the conversation it is. */
export interface ChannelChat {
  channel: string;
  chat_id: string;
  conversation_id: string;
  label: string;
}

/**
 * The channel store.
 *
 * @example
 * ```ts
 * const channels = new SqliteChannels(db, kv);
 * if (channels.recordInbound("telegram", "42", "7")) console.log("new: answer it");
 * ```
 */
export class SqliteChannels {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;
  readonly #kv: SqliteKv;

  constructor(db: DatabaseSync, kv: SqliteKv) {
    this.#db = db;
    this.#sql = statements(db);
    this.#kv = kv;
  }

  /**
   * Runs `work`, writes of this store, in one transaction once hob.db's write
   * lock is had: waiting without blocking while another program holds it
   * (see `withWriteLock`).
   */
  write<T>(work: () => T): Promise<T> {
    return withWriteLock(this.#db, work);
  }

  /** The conversation a chat is, or undefined when it has none yet (or it was deleted). */
  chat(channel: string, chatId: string): ChannelChat | undefined {
    const row = this.#sql<ChannelChat>(
      "SELECT * FROM channel_chats WHERE channel = ? AND chat_id = ?",
    ).get(channel, chatId);
    return row ? { ...row } : undefined;
  }

  /** Makes `conversationId` the chat's conversation (a `/new` replaces the old one). */
  setChat(chat: ChannelChat): void {
    this.#sql(
      `INSERT INTO channel_chats (channel, chat_id, conversation_id, label) VALUES (?, ?, ?, ?)
       ON CONFLICT (channel, chat_id) DO UPDATE SET conversation_id = excluded.conversation_id,
         label = excluded.label`,
    ).run(chat.channel, chat.chat_id, chat.conversation_id, chat.label);
  }

  /** Every chat a conversation is held in (none for the page's own chats). */
  chatsOf(conversationId: string): ChannelChat[] {
    return this.#sql<ChannelChat>("SELECT * FROM channel_chats WHERE conversation_id = ?")
      .all(conversationId).map((row) => ({ ...row }));
  }

  /**
   * Records a delivered message; false when it was recorded before (a
   * platform delivering it again after a restart), which is then not answered.
   */
  recordInbound(channel: string, messageId: string, senderId: string): boolean {
    const result = this.#sql(
      `INSERT INTO channel_inbound (channel, message_id, sender_id, received_at) VALUES (?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    ).run(channel, messageId, senderId, timestamp());
    return Number(result.changes) === 1;
  }

  /** Forgets delivered ids older than the keep window; returns how many. */
  pruneInbound(now = Date.now()): number {
    const cutoff = new Date(now - INBOUND_KEEP_DAYS * 86_400_000).toISOString();
    return Number(
      this.#sql("DELETE FROM channel_inbound WHERE received_at < ?").run(cutoff).changes,
    );
  }

  /** Where the channel's stream resumes (an update offset, a UID, a sync token), or null. */
  cursor(channel: string): string | null {
    return this.#kv.read<string>(`channel.cursor.${channel}`) ?? null;
  }

  setCursor(channel: string, cursor: string): void {
    this.#kv.write(`channel.cursor.${channel}`, cursor);
  }

  /** Counts a message from a sender nobody allowed. */
  recordStranger(
    stranger: { channel: string; sender_id: string; name: string; chat_id: string; text: string },
  ): void {
    const now = timestamp();
    transaction(this.#db, () => {
      this.#sql(
        `INSERT INTO channel_strangers
           (channel, sender_id, name, chat_id, excerpt, messages, first_seen, last_seen)
         VALUES (?, ?, ?, ?, ?, 1, ?, ?)
         ON CONFLICT (channel, sender_id) DO UPDATE SET name = excluded.name,
           chat_id = excluded.chat_id, excerpt = excluded.excerpt,
           messages = messages + 1, last_seen = excluded.last_seen`,
      ).run(
        stranger.channel,
        stranger.sender_id,
        stranger.name,
        stranger.chat_id,
        stranger.text.slice(0, EXCERPT_CHARS),
        now,
        now,
      );
    });
  }

  /** Strangers, the latest first; only one channel's when given. */
  strangers(channel?: string, limit = 50): Stranger[] {
    return this.#sql<Stranger>(
      `SELECT * FROM channel_strangers WHERE ? IS NULL OR channel = ?
       ORDER BY last_seen DESC LIMIT ?`,
    ).all(channel ?? null, channel ?? null, limit).map((row) => ({ ...row }));
  }

  /** Forgets a stranger (once the owner allowed or dismissed them). */
  forgetStranger(channel: string, senderId: string): boolean {
    return Number(
      this.#sql("DELETE FROM channel_strangers WHERE channel = ? AND sender_id = ?")
        .run(channel, senderId).changes,
    ) === 1;
  }
}
