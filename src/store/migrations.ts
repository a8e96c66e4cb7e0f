/**
 * The schema of hob.db as numbered migrations. Each runs once, in its own
 * transaction, in order; `PRAGMA user_version` records the last one applied.
 * Append new migrations; never edit one that has shipped.
 */

/** One schema change. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations, messages, kv",
    sql: `
      CREATE TABLE conversations (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL DEFAULT '',
        model       TEXT,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
      CREATE INDEX conversations_by_recency ON conversations (updated_at DESC);

      CREATE TABLE messages (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content         TEXT NOT NULL DEFAULT '',
        tool_calls      TEXT,
        tool_call_id    TEXT,
        tool_name       TEXT,
        is_error        INTEGER NOT NULL DEFAULT 0,
        model           TEXT,
        input_tokens    INTEGER,
        output_tokens   INTEGER,
        status          TEXT NOT NULL DEFAULT 'complete'
                        CHECK (status IN ('complete', 'streaming', 'interrupted', 'error')),
        -- Which process is streaming this reply, so another can tell a crash from work in progress.
        owner           TEXT,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
      CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';

      CREATE TABLE kv (
        key         TEXT PRIMARY KEY,
        value       TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
    `,
  },
];
