/**
 * Conversations and messages in SQLite: the ConversationStore port for the
 * agent plus the listing, renaming and deleting the API needs. Every write is
 * its own statement under WAL, so it is durable when the call returns.
 */

import { type Sql, statements } from "./statements.ts";
import type { DatabaseSync } from "node:sqlite";
import type { ConversationStore } from "../core/ports.ts";
import { isLiveOwner, PROCESS_OWNER } from "./owner.ts";
import { timestamp } from "./timestamp.ts";
import { storableText } from "../core/storable.ts";
import { withWriteLock, type WriteLockOptions } from "./transaction.ts";
import { type MessageHit, searchMessages, type SearchMessagesOptions } from "./message_search.ts";
import type {
  Attachment,
  Conversation,
  ConversationKind,
  MessageError,
  MessagePatch,
  MessageStatus,
  NewMessage,
  Role,
  StoredMessage,
  ToolCall,
} from "../core/types.ts";

/** A stored message and its place in its conversation, from 1. */
export type PlacedMessage = StoredMessage & { position: number };

/** Which message a window of a conversation is around: by id, by position (from 1), or the first. */
export interface WindowAnchor {
  messageId?: number;
  position?: number;
}

/** A conversation with the figures a listing shows. */
export interface ConversationSummary extends Conversation {
  message_count: number;
}

/** Options for {@linkcode SqliteConversationStore.listConversations}. */
export interface ListConversationsOptions {
  /** @default {50} */
  limit?: number;
  /** @default {0} */
  offset?: number;
  /** Only conversations whose title contains this text (case-insensitive). */
  query?: string;
  /** Only conversations of this kind; `"all"` for every kind. @default {"chat"} */
  kind?: ConversationKind | "all";
}

interface MessageRow {
  id: number;
  conversation_id: string;
  role: Role;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: number;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  status: MessageStatus;
  attachments: string | null;
  taint: string | null;
  error: string | null;
  created_at: string;
}

const MESSAGE_COLUMNS =
  "id, conversation_id, role, content, tool_calls, tool_call_id, tool_name, is_error, model, input_tokens, output_tokens, status, attachments, taint, error, created_at";

/**
 * The SQLite conversation store. One instance per open database.
 *
 * @example
 * ```ts
 * const store = new SqliteConversationStore(openDatabase(path));
 * const conversation = store.createConversation({ title: "Plans" });
 * ```
 */
export class SqliteConversationStore implements ConversationStore {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = statements(db);
  }

  /**
   * Runs `work`, writes of this store, in one transaction once hob.db's write
   * lock is had (see `withWriteLock`): by default as long as unattended work
   * waits; `options` for a request's shorter wait.
   */
  write<T>(work: () => T, options?: WriteLockOptions): Promise<T> {
    return withWriteLock(this.#db, work, options);
  }

  getConversation(id: string): Conversation | undefined {
    const row = this.#sql<Conversation>(
      "SELECT id, title, model, kind, created_at, updated_at FROM conversations WHERE id = ?",
    ).get(id);
    return row ? { ...row } : undefined;
  }

  createConversation(
    init: { id?: string; title?: string; model?: string | null; kind?: ConversationKind } = {},
  ): Conversation {
    const now = timestamp();
    const conversation: Conversation = {
      id: init.id ?? crypto.randomUUID(),
      title: init.title ?? "",
      model: init.model ?? null,
      kind: init.kind ?? "chat",
      created_at: now,
      updated_at: now,
    };
    this.#sql(
      "INSERT INTO conversations (id, title, model, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(
      conversation.id,
      conversation.title,
      conversation.model,
      conversation.kind,
      now,
      now,
    );
    return conversation;
  }

  setConversationTitle(id: string, title: string): void {
    this.#sql("UPDATE conversations SET title = ? WHERE id = ?").run(title, id);
  }

  /** Sets the model a conversation uses from now on (`null`: the configured default). */
  setConversationModel(id: string, model: string | null): void {
    this.#sql("UPDATE conversations SET model = ? WHERE id = ?").run(model, id);
  }

  /** Deletes a conversation and its messages; false when it did not exist. */
  deleteConversation(id: string): boolean {
    const result = this.#sql("DELETE FROM conversations WHERE id = ?").run(id);
    return Number(result.changes) > 0;
  }

  /** Conversations, most recently active first, with their message counts. */
  listConversations(
    options: ListConversationsOptions = {},
  ): ConversationSummary[] {
    const { limit = 50, offset = 0, query, kind = "chat" } = options;
    const pattern = query ? `%${escapeLike(query)}%` : null;
    const kindFilter = kind === "all" ? null : kind;
    return this.#sql<ConversationSummary>(
      `SELECT c.id, c.title, c.model, c.kind, c.created_at, c.updated_at,
              (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count
         FROM conversations c
        WHERE (? IS NULL OR c.title LIKE ? ESCAPE '\\') AND (? IS NULL OR c.kind = ?)
        ORDER BY c.updated_at DESC, c.rowid DESC
        LIMIT ? OFFSET ?`,
    ).all(pattern, pattern, kindFilter, kindFilter, limit, offset).map((row) => ({ ...row }));
  }

  addMessage(message: NewMessage): StoredMessage {
    const now = timestamp();
    const status = message.status ?? "complete";
    const result = this.#sql(
      `INSERT INTO messages (conversation_id, role, content, tool_calls, tool_call_id, tool_name,
                             is_error, model, input_tokens, output_tokens, status, owner, attachments, taint,
                             error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      message.conversation_id,
      message.role,
      storableText(message.content),
      message.tool_calls?.length ? JSON.stringify(message.tool_calls) : null,
      message.tool_call_id ?? null,
      message.tool_name ?? null,
      message.is_error ? 1 : 0,
      message.model ?? null,
      message.input_tokens ?? null,
      message.output_tokens ?? null,
      status,
      status === "streaming" ? PROCESS_OWNER : null,
      message.attachments?.length ? JSON.stringify(message.attachments) : null,
      message.taint ?? null,
      message.error ? JSON.stringify(message.error) : null,
      now,
    );
    this.#sql("UPDATE conversations SET updated_at = ? WHERE id = ?").run(
      now,
      message.conversation_id,
    );
    return {
      id: Number(result.lastInsertRowid),
      conversation_id: message.conversation_id,
      role: message.role,
      content: storableText(message.content),
      tool_calls: message.tool_calls?.length ? message.tool_calls : null,
      tool_call_id: message.tool_call_id ?? null,
      tool_name: message.tool_name ?? null,
      is_error: message.is_error ?? false,
      model: message.model ?? null,
      input_tokens: message.input_tokens ?? null,
      output_tokens: message.output_tokens ?? null,
      status,
      attachments: message.attachments?.length ? message.attachments : null,
      taint: message.taint ?? null,
      error: message.error ?? null,
      created_at: now,
    };
  }

  updateMessage(id: number, patch: MessagePatch): void {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    if (patch.content !== undefined) {
      sets.push("content = ?");
      // A model's or a program's NUL is marked, not the end of what is kept.
      values.push(storableText(patch.content));
    }
    if (patch.tool_calls !== undefined) {
      sets.push("tool_calls = ?");
      values.push(
        patch.tool_calls?.length ? JSON.stringify(patch.tool_calls) : null,
      );
    }
    if (patch.status !== undefined) {
      sets.push("status = ?", "owner = ?");
      values.push(
        patch.status,
        patch.status === "streaming" ? PROCESS_OWNER : null,
      );
    }
    if (patch.input_tokens !== undefined) {
      sets.push("input_tokens = ?");
      values.push(patch.input_tokens);
    }
    if (patch.output_tokens !== undefined) {
      sets.push("output_tokens = ?");
      values.push(patch.output_tokens);
    }
    if (patch.error !== undefined) {
      sets.push("error = ?");
      values.push(patch.error ? JSON.stringify(patch.error) : null);
    }
    if (sets.length === 0) return;
    this.#sql(`UPDATE messages SET ${sets.join(", ")} WHERE id = ?`).run(
      ...values,
      id,
    );
  }

  recentMessages(conversationId: string, limit: number, afterId = 0): StoredMessage[] {
    const rows = this.#sql<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id DESC LIMIT ?`,
    ).all(conversationId, afterId, limit);
    return rows.reverse().map(toStoredMessage);
  }

  contentSize(conversationId: string, afterId = 0): number {
    const row = this.#sql<{ n: number }>(
      `SELECT COALESCE(SUM(LENGTH(content) + COALESCE(LENGTH(tool_calls), 0)), 0) AS n
         FROM messages WHERE conversation_id = ? AND id > ?`,
    ).one(conversationId, afterId);
    return row.n;
  }

  getFlush(conversationId: string): { through: number; summary: string } {
    const row = this.#sql<{ flushed_through: number; flush_summary: string }>(
      "SELECT flushed_through, flush_summary FROM conversations WHERE id = ?",
    ).get(conversationId);
    return { through: row?.flushed_through ?? 0, summary: row?.flush_summary ?? "" };
  }

  setFlush(conversationId: string, through: number, summary: string): void {
    this.#sql("UPDATE conversations SET flushed_through = ?, flush_summary = ? WHERE id = ?").run(
      through,
      summary,
      conversationId,
    );
  }

  /** Messages of a conversation in order, after message id `after`. */
  listMessages(
    conversationId: string,
    options: { after?: number; limit?: number } = {},
  ): StoredMessage[] {
    const { after = 0, limit = 1000 } = options;
    const rows = this.#sql<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id LIMIT ?`,
    ).all(conversationId, after, limit);
    return rows.map(toStoredMessage);
  }

  countMessages(conversationId: string, afterId = 0): number {
    const row = this.#sql<{ n: number }>(
      "SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND id > ?",
    ).one(conversationId, afterId);
    return row.n;
  }

  /**
   * The messages that match `query` best, over every conversation still
   * stored (a deleted one's messages are gone with it), best first.
   */
  searchMessages(query: string, options: SearchMessagesOptions = {}): MessageHit[] {
    return searchMessages(this.#sql, query, options);
  }

  /**
   * Up to `before` messages before the anchor, the anchor, and up to `after`
   * after it, in order, each with its position; undefined when the
   * conversation holds no such message.
   */
  messageWindow(
    conversationId: string,
    anchor: WindowAnchor,
    before: number,
    after: number,
  ): PlacedMessage[] | undefined {
    const id = this.#anchorId(conversationId, anchor);
    if (id === undefined) return undefined;
    const { n: position } = this.#sql<{ n: number }>(
      "SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND id <= ?",
    ).one(conversationId, id);
    const earlier = this.#sql<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    ).all(conversationId, id, before);
    const later = this.#sql<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND id >= ? ORDER BY id LIMIT ?`,
    ).all(conversationId, id, after + 1);
    const first = position - earlier.length;
    return [...earlier.reverse(), ...later].map((row, i) => ({
      ...toStoredMessage(row),
      position: first + i,
    }));
  }

  #anchorId(conversationId: string, anchor: WindowAnchor): number | undefined {
    if (anchor.messageId !== undefined) {
      const row = this.#sql<{ id: number }>(
        "SELECT id FROM messages WHERE id = ? AND conversation_id = ?",
      ).get(anchor.messageId, conversationId);
      return row?.id;
    }
    const row = this.#sql<{ id: number }>(
      "SELECT id FROM messages WHERE conversation_id = ? ORDER BY id LIMIT 1 OFFSET ?",
    ).get(conversationId, Math.max(0, (anchor.position ?? 1) - 1));
    return row?.id;
  }

  /**
   * Marks replies left `streaming` by a process that is gone as `interrupted`,
   * keeping the text they had saved. Replies that a live process (another
   * `hob ask`, a running server) is still streaming are left alone.
   * Returns how many replies were recovered.
   */
  recoverInterrupted(): number {
    const owners = this.#sql<{ owner: string | null }>(
      "SELECT DISTINCT owner FROM messages WHERE status = 'streaming'",
    ).all();
    let recovered = 0;
    for (const { owner } of owners) {
      if (owner && isLiveOwner(owner)) continue;
      const result = this.#sql(
        "UPDATE messages SET status = 'interrupted', owner = NULL WHERE status = 'streaming' AND owner IS ?",
      ).run(owner);
      recovered += Number(result.changes);
    }
    return recovered;
  }
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    role: row.role,
    content: row.content,
    tool_calls: row.tool_calls ? JSON.parse(row.tool_calls) as ToolCall[] : null,
    tool_call_id: row.tool_call_id,
    tool_name: row.tool_name,
    is_error: row.is_error === 1,
    model: row.model,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    status: row.status,
    attachments: row.attachments ? JSON.parse(row.attachments) as Attachment[] : null,
    taint: row.taint,
    error: row.error ? JSON.parse(row.error) as MessageError : null,
    created_at: row.created_at,
  };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
