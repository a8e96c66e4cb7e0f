/**
 * The schema of hob.db as numbered migrations. Each runs once, in its own
 * transaction, in order; `PRAGMA user_version` records the last one applied.
 * Append new migrations; never edit one that has shipped.
 */

import type { DatabaseSync } from "node:sqlite";
import { statements } from "./statements.ts";

/** One schema change. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Runs with foreign keys off, as SQLite's way to change a table's
   * constraints needs (make the new table, copy, drop the old, rename): a
   * drop with them on would delete the rows that refer to it. The references
   * are checked before the migration commits.
   */
  rebuildsTables?: true;
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
  {
    version: 2,
    name: "tool events, approvals, remembered decisions",
    sql: `
      CREATE TABLE tool_events (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        -- NULL for calls the owner made directly (API, CLI).
        conversation_id TEXT REFERENCES conversations (id) ON DELETE CASCADE,
        tool_call_id    TEXT,
        tool            TEXT NOT NULL,
        arguments       TEXT NOT NULL,
        result          TEXT NOT NULL DEFAULT '',
        is_error        INTEGER NOT NULL DEFAULT 0,
        duration_ms     INTEGER NOT NULL DEFAULT 0,
        -- The Worker's permissions as JSON; NULL when no Worker ran (refused, denied).
        permissions     TEXT,
        -- How the call was cleared: policy, remembered, approved, denied, expired, owner.
        approval        TEXT NOT NULL,
        approval_id     TEXT,
        source          TEXT NOT NULL,
        created_at      TEXT NOT NULL
      );
      CREATE INDEX tool_events_by_conversation ON tool_events (conversation_id, id);

      CREATE TABLE approvals (
        id              TEXT PRIMARY KEY,
        conversation_id TEXT,
        tool_call_id    TEXT,
        tool            TEXT NOT NULL,
        arguments       TEXT NOT NULL,
        reason          TEXT NOT NULL DEFAULT '',
        shape           TEXT NOT NULL DEFAULT '',
        status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
        remember        INTEGER NOT NULL DEFAULT 0,
        owner           TEXT,
        created_at      TEXT NOT NULL,
        expires_at      TEXT NOT NULL,
        decided_at      TEXT
      );
      CREATE INDEX approvals_pending ON approvals (status) WHERE status = 'pending';

      CREATE TABLE tool_grants (
        tool        TEXT NOT NULL,
        shape       TEXT NOT NULL,
        decision    TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
        created_at  TEXT NOT NULL,
        PRIMARY KEY (tool, shape)
      );
    `,
  },
  {
    version: 3,
    name: "memory index: files, chunks, full-text search, vectors",
    sql: `
      CREATE TABLE memory_files (
        path        TEXT PRIMARY KEY,  -- relative to HOME/memory
        hash        TEXT NOT NULL,     -- SHA-256 of the content indexed
        size        INTEGER NOT NULL,
        indexed_at  TEXT NOT NULL
      );

      CREATE TABLE memory_chunks (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        path        TEXT NOT NULL REFERENCES memory_files (path) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        heading     TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        text        TEXT NOT NULL,
        hash        TEXT NOT NULL      -- of heading and text: equal chunks share vectors
      );
      CREATE INDEX memory_chunks_by_path ON memory_chunks (path, seq);

      CREATE VIRTUAL TABLE memory_fts USING fts5(
        heading, text,
        content = 'memory_chunks', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER memory_chunks_insert AFTER INSERT ON memory_chunks BEGIN
        INSERT INTO memory_fts (rowid, heading, text) VALUES (new.id, new.heading, new.text);
      END;
      CREATE TRIGGER memory_chunks_delete AFTER DELETE ON memory_chunks BEGIN
        INSERT INTO memory_fts (memory_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
      END;

      CREATE TABLE memory_vectors (
        chunk_id    INTEGER NOT NULL REFERENCES memory_chunks (id) ON DELETE CASCADE,
        window      INTEGER NOT NULL,  -- which window of the chunk (models read only so much)
        embedder    TEXT NOT NULL,     -- vectors of two embedders are never compared
        vector      BLOB NOT NULL,     -- Float32, unit length
        bits        BLOB NOT NULL,     -- the vector's signs, for a fast first pass over many
        PRIMARY KEY (chunk_id, window)
      );
      CREATE INDEX memory_vectors_by_embedder ON memory_vectors (embedder);

      -- Auto-flush: messages up to this id were summarised into the daily log and
      -- left out of the live context (they stay stored); the summary stands in for them.
      ALTER TABLE conversations ADD COLUMN flushed_through INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE conversations ADD COLUMN flush_summary TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 4,
    name: "scheduled jobs and their runs, background tasks, workers, notifications",
    sql: `
      -- What a conversation is for: the user's chats, and the ones hob holds for jobs and tasks.
      ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'
        CHECK (kind IN ('chat', 'job', 'heartbeat', 'task', 'subagent'));

      CREATE TABLE jobs (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        name            TEXT NOT NULL UNIQUE,
        prompt          TEXT NOT NULL,
        schedule        TEXT NOT NULL,
        timezone        TEXT NOT NULL,
        enabled         INTEGER NOT NULL DEFAULT 1,
        missed_policy   TEXT NOT NULL DEFAULT 'run_once' CHECK (missed_policy IN ('run_once', 'skip')),
        model           TEXT,
        conversation_id TEXT REFERENCES conversations (id) ON DELETE SET NULL,
        next_run        TEXT,            -- NULL once a once: job has run
        last_run        TEXT,
        anchor          TEXT NOT NULL,   -- where 'every' schedules count from
        running_owner   TEXT,            -- the process running it now: a job never overlaps itself
        running_since   TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );

      CREATE TABLE job_runs (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id          INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        trigger         TEXT NOT NULL CHECK (trigger IN ('schedule', 'manual', 'catch_up')),
        status          TEXT NOT NULL
                        CHECK (status IN ('running', 'ok', 'error', 'missed', 'skipped', 'interrupted')),
        due_at          TEXT,
        started_at      TEXT NOT NULL,
        finished_at     TEXT,
        result          TEXT NOT NULL DEFAULT '',
        error           TEXT,
        missed_count    INTEGER NOT NULL DEFAULT 0,
        input_tokens    INTEGER,
        output_tokens   INTEGER,
        conversation_id TEXT
      );
      CREATE INDEX job_runs_by_job ON job_runs (job_id, id);

      CREATE TABLE tasks (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        title           TEXT NOT NULL,
        prompt          TEXT NOT NULL,
        priority        INTEGER NOT NULL DEFAULT 0,
        status          TEXT NOT NULL
                        CHECK (status IN ('pending', 'in_progress', 'waiting', 'complete', 'failed', 'cancelled')),
        blocked_by      TEXT NOT NULL DEFAULT '[]',  -- JSON array of task ids that must complete first
        output          TEXT NOT NULL DEFAULT '',
        waiting_reason  TEXT,
        claimed_by      TEXT,
        claimed_at      TEXT,
        attempts        INTEGER NOT NULL DEFAULT 0,
        conversation_id TEXT REFERENCES conversations (id) ON DELETE SET NULL,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );
      CREATE INDEX tasks_claimable ON tasks (status, priority DESC, id);

      CREATE TABLE workers (
        id          TEXT PRIMARY KEY,   -- pid:nonce of the process, and a slot number
        pid         INTEGER NOT NULL,
        kind        TEXT NOT NULL,      -- serve or worker
        started_at  TEXT NOT NULL,
        seen_at     TEXT NOT NULL,
        task_id     INTEGER
      );

      CREATE TABLE notifications (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        kind        TEXT NOT NULL,
        title       TEXT NOT NULL,
        body        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        read_at     TEXT
      );
    `,
  },
  {
    version: 5,
    name: "files sent with messages",
    sql: `
      -- JSON: [{path, name, type, size}], paths relative to the hob home (uploads/...).
      ALTER TABLE messages ADD COLUMN attachments TEXT;
    `,
  },
  {
    version: 6,
    name: "provenance: what a message, task or job was derived from",
    sql: `
      -- Set when the row was written by (or for) a turn that had read untrusted content:
      -- where that content came from. A turn that reads such a row is tainted in turn.
      ALTER TABLE messages ADD COLUMN taint TEXT;
      ALTER TABLE tasks ADD COLUMN taint TEXT;
      ALTER TABLE jobs ADD COLUMN taint TEXT;
    `,
  },
  {
    version: 7,
    name: "why a reply failed",
    sql: `
      -- JSON: {code, message}, the turn's error event, on an assistant message with status 'error':
      -- a failed turn keeps its reply, and whoever reads the conversation later sees why.
      ALTER TABLE messages ADD COLUMN error TEXT;
    `,
  },
  {
    version: 8,
    name: "channels: conversations held on Telegram, email and Matrix",
    rebuildsTables: true,
    sql: `
      -- A conversation's kind gains 'channel' (a CHECK constraint changes only by a rebuild).
      CREATE TABLE conversations_new (
        id              TEXT PRIMARY KEY,
        title           TEXT NOT NULL DEFAULT '',
        model           TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL,
        flushed_through INTEGER NOT NULL DEFAULT 0,
        flush_summary   TEXT NOT NULL DEFAULT '',
        kind            TEXT NOT NULL DEFAULT 'chat'
          CHECK (kind IN ('chat', 'job', 'heartbeat', 'task', 'subagent', 'channel'))
      );
      INSERT INTO conversations_new
        (id, title, model, created_at, updated_at, flushed_through, flush_summary, kind)
        SELECT id, title, model, created_at, updated_at, flushed_through, flush_summary, kind
        FROM conversations;
      DROP TABLE conversations;
      ALTER TABLE conversations_new RENAME TO conversations;
      CREATE INDEX conversations_by_recency ON conversations (updated_at DESC);

      -- Which conversation a chat on a channel (a Telegram chat, an email thread, a Matrix room) is.
      CREATE TABLE channel_chats (
        channel         TEXT NOT NULL,
        chat_id         TEXT NOT NULL,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        label           TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (channel, chat_id)
      );
      CREATE INDEX channel_chats_by_conversation ON channel_chats (conversation_id);

      -- Every message a channel delivered, by the platform's id: one answer each, even after a restart.
      CREATE TABLE channel_inbound (
        channel     TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        sender_id   TEXT NOT NULL,
        received_at TEXT NOT NULL,
        PRIMARY KEY (channel, message_id)
      );

      -- A job's result sent to the owner on a channel as well ('telegram'…), or NULL.
      ALTER TABLE jobs ADD COLUMN deliver TEXT;

      -- Senders nobody allowed: never answered, listed so the owner can allow themself.
      CREATE TABLE channel_strangers (
        channel    TEXT NOT NULL,
        sender_id  TEXT NOT NULL,
        name       TEXT NOT NULL DEFAULT '',
        chat_id    TEXT NOT NULL,
        excerpt    TEXT NOT NULL DEFAULT '',
        messages   INTEGER NOT NULL DEFAULT 1,
        first_seen TEXT NOT NULL,
        last_seen  TEXT NOT NULL,
        PRIMARY KEY (channel, sender_id)
      );
    `,
  },
  {
    version: 9,
    name: "file versions: every write to memory, identity, skills and user tools",
    sql: `
      -- Each distinct content once, by its SHA-256.
      CREATE TABLE file_contents (
        hash    TEXT PRIMARY KEY,
        content TEXT NOT NULL
      );

      -- One row per write, never updated or deleted: history, diffs and reverts read it.
      CREATE TABLE file_versions (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        path            TEXT NOT NULL,              -- relative to the hob home: memory/MEMORY.md
        hash            TEXT REFERENCES file_contents (hash),  -- NULL: the file was deleted
        size            INTEGER NOT NULL,
        at              TEXT NOT NULL,
        author          TEXT NOT NULL
          CHECK (author IN ('owner', 'agent', 'flush', 'job', 'mcp', 'hob')),
        via             TEXT NOT NULL DEFAULT '',   -- page, cli, api, editor, remember_this, revert…
        conversation_id TEXT,                       -- no reference: history outlives conversations
        taint           TEXT,                       -- the untrusted source the writing turn had read
        reverts         INTEGER                     -- the version this one restored
      );
      CREATE INDEX file_versions_by_path ON file_versions (path, id);
      CREATE INDEX file_versions_tainted ON file_versions (id) WHERE taint IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: "full-text search over past conversations",
    sql: `
      -- The words of every message, for search_conversations: the user's, hob's replies and tool
      -- results. Kept in step by the triggers of FTS5's external-content pattern, so an edit, a
      -- reply saved as it streams (it ends with its final text) and a delete (also of a whole
      -- conversation, by its cascade) reach the index. Search leaves out replies still streaming.
      CREATE VIRTUAL TABLE messages_fts USING fts5(
        content,
        content = 'messages', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
      END;
      INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
    `,
  },
  {
    version: 11,
    name: "every model call, counted",
    sql: `
      -- One row per request to a model: chat steps, titles, flush summaries, heartbeats, jobs,
      -- tasks, sub-agents, skills, /v1 and MCP. No references: the log outlives conversations
      -- (heartbeats prune theirs) and jobs, so spend stays counted.
      CREATE TABLE model_calls (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        at              TEXT NOT NULL,
        model           TEXT NOT NULL,             -- <provider>/<model>
        provider        TEXT NOT NULL,
        kind            TEXT NOT NULL,             -- chat, title, flush, heartbeat, job, task, …
        conversation_id TEXT,
        job             TEXT,                      -- the job's name, for a job's calls
        task_id         INTEGER,
        tool            TEXT,                      -- the tool that made it (a skill, analyze_image)
        input_tokens    INTEGER NOT NULL DEFAULT 0, -- cached ones included
        output_tokens   INTEGER NOT NULL DEFAULT 0,
        cached_tokens   INTEGER NOT NULL DEFAULT 0,
        cost_usd        REAL NOT NULL DEFAULT 0,
        error           TEXT                       -- the provider's error code, when it failed
      );
      CREATE INDEX model_calls_by_time ON model_calls (at);
      CREATE INDEX model_calls_by_job ON model_calls (job, at) WHERE job IS NOT NULL;
    `,
  },
  {
    version: 12,
    name: "MCP tools the owner approved, pinned by hash",
    sql: `
      -- One row per tool of an MCP server whose definition the owner approved. A tool is offered
      -- to models only while the server lists it with this very hash; a changed one waits for
      -- the owner again, who sees this definition beside the new one.
      CREATE TABLE mcp_pins (
        server      TEXT NOT NULL,  -- the server's key in hob.yaml's mcpServers
        tool        TEXT NOT NULL,  -- the server's own name of the tool
        hash        TEXT NOT NULL,  -- SHA-256 of the definition, as hex
        definition  TEXT NOT NULL,  -- that definition as JSON: name, description, schema, hints
        approved_at TEXT NOT NULL,
        PRIMARY KEY (server, tool)
      );
    `,
  },
  {
    version: 13,
    name: "Agent Skills installed, and the content the owner accepted",
    sql: `
      -- One row per skill folder in HOME/skills that hob installed: where it came from, who
      -- installed it, and the hash of the files the owner accepted (NULL until then). A skill is
      -- offered to models only while its files hash to the accepted one.
      CREATE TABLE skill_installs (
        name          TEXT PRIMARY KEY,  -- the skill's name, its folder's name
        source        TEXT NOT NULL,     -- the path or URL it was installed from
        installed_by  TEXT NOT NULL,     -- cli, api, page, agent
        installed_at  TEXT NOT NULL,
        hash          TEXT NOT NULL,     -- SHA-256 of the files as installed
        accepted_hash TEXT,              -- the files the owner accepted; NULL: not yet
        accepted_at   TEXT,
        granted_tools TEXT NOT NULL DEFAULT '[]', -- JSON: hob tools it may run unasked
        granted_hosts TEXT NOT NULL DEFAULT '[]'  -- JSON: hosts its scripts may reach
      );
    `,
  },
];

/** The schema version this build of hob writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The schema version a database is at (0 before any migration). */
export function userVersion(db: DatabaseSync): number {
  const row = statements(db)<{ user_version: number }>("PRAGMA user_version").get();
  return row?.user_version ?? 0;
}
