/**
 * File versions: every write to a file of the hob home that shapes the agent
 * (memory, identity, skills, user tools) as one row, never changed or
 * deleted, with the content stored once per distinct text. What wrote it —
 * the owner, the agent, the auto-flush, a job, an MCP client — and whether
 * the writing turn had read untrusted content are part of the row, so a
 * poisoned write can be found and undone. Knows SQLite, not the files.
 */

import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { transaction } from "./transaction.ts";

/** Who wrote a version. */
export type Author = "owner" | "agent" | "flush" | "job" | "mcp" | "hob";

/**
 * Who made a write, and from where: every write to a versioned file carries
 * one, so a forgotten author fails `deno check`, not a review.
 */
export interface WrittenBy {
  author: Author;
  /** How: `page`, `cli`, `api`, `editor`, a tool's name (`remember_this`), `revert`… */
  via: string;
  /** The conversation whose turn wrote it, if a turn did. */
  conversation_id?: string | null;
  /** Set when the writing turn had read untrusted content: where that came from. */
  taint?: string | null;
  /** The version this write restored or undid. */
  reverts?: number | null;
}

/** One write of one file. */
export interface FileVersion {
  id: number;
  /** Relative to the hob home: `memory/MEMORY.md`, `identity/SOUL.md`. */
  path: string;
  /** SHA-256 of the content; null when the write deleted the file. */
  hash: string | null;
  size: number;
  at: string;
  author: Author;
  via: string;
  conversation_id: string | null;
  taint: string | null;
  /** The version this write restored or undid (a revert or an undo: see `via`). */
  reverts: number | null;
}

/** Which versions to list, newest first. */
export interface VersionQuery {
  /** One file's versions. */
  path?: string;
  /** Only writes made by tainted turns. */
  tainted?: boolean;
  /** Only versions older than this id (the next page). */
  before?: number;
  /** @default {50} */
  limit?: number;
}

/**
 * What a write that names `reverts` did, in words for a list of versions: an undo
 * took that version's change back, a revert put the file back as it was then.
 *
 * @example
 * ```ts
 * revertWords({ reverts: 9, via: "cli undo" }); // "undid version 9"
 * ```
 */
export function revertWords(version: Pick<FileVersion, "reverts" | "via">): string | null {
  if (version.reverts === null) return null;
  return /\bundo$/.test(version.via)
    ? `undid version ${version.reverts}`
    : `restored version ${version.reverts}`;
}

const COLUMNS = "id, path, hash, size, at, author, via, conversation_id, taint, reverts";

/**
 * The versions of a home's files in hob.db.
 *
 * @example
 * ```ts
 * const versions = new SqliteVersions(db, () => new Date());
 * versions.record("memory/MEMORY.md", "# Memory\n", { author: "owner", via: "cli" });
 * versions.list({ path: "memory/MEMORY.md" })[0].author; // "owner"
 * ```
 */
export class SqliteVersions {
  readonly #sql: Sql;
  readonly #db: DatabaseSync;
  readonly #now: () => Date;

  constructor(db: DatabaseSync, now: () => Date) {
    this.#db = db;
    this.#sql = statements(db);
    this.#now = now;
  }

  /**
   * Records `content` (null: the file is gone) as the newest version of
   * `path` — unless it already is, so a write noticed twice (by its writer
   * and by the watcher) is one version. Returns the new version, or null
   * when nothing changed.
   */
  record(
    path: string,
    content: string | null,
    by: WrittenBy,
  ): FileVersion | null {
    const hash = content === null ? null : contentHash(content);
    return transaction(this.#db, () => {
      const latest = this.latest(path);
      if (latest ? latest.hash === hash : hash === null) return null;
      if (content !== null) {
        this.#sql("INSERT OR IGNORE INTO file_contents (hash, content) VALUES (?, ?)")
          .run(hash, content);
      }
      return this.#sql<FileVersion>(
        `INSERT INTO file_versions (path, hash, size, at, author, via, conversation_id, taint, reverts)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ).one(
        path,
        hash,
        content === null ? 0 : new TextEncoder().encode(content).length,
        this.#now().toISOString(),
        by.author,
        by.via,
        by.conversation_id ?? null,
        by.taint ?? null,
        by.reverts ?? null,
      );
    });
  }

  /** The newest version of `path`, if it has any. */
  latest(path: string): FileVersion | undefined {
    return this.#sql<FileVersion>(
      `SELECT ${COLUMNS} FROM file_versions WHERE path = ? ORDER BY id DESC LIMIT 1`,
    ).get(path);
  }

  get(id: number): FileVersion | undefined {
    return this.#sql<FileVersion>(`SELECT ${COLUMNS} FROM file_versions WHERE id = ?`).get(id);
  }

  /** The version of the same file just before `version`, if there is one. */
  previous(version: FileVersion): FileVersion | undefined {
    return this.#sql<FileVersion>(
      `SELECT ${COLUMNS} FROM file_versions WHERE path = ? AND id < ? ORDER BY id DESC LIMIT 1`,
    ).get(version.path, version.id);
  }

  /** What the file held at `version`; null when that write deleted it. */
  content(version: FileVersion): string | null {
    if (version.hash === null) return null;
    const row = this.#sql<{ content: string }>("SELECT content FROM file_contents WHERE hash = ?")
      .get(version.hash);
    return row?.content ?? null;
  }

  /** Versions, newest first. */
  list(query: VersionQuery = {}): FileVersion[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.path !== undefined) {
      where.push("path = ?");
      params.push(query.path);
    }
    if (query.tainted) where.push("taint IS NOT NULL");
    if (query.before !== undefined) {
      where.push("id < ?");
      params.push(query.before);
    }
    const sql = `SELECT ${COLUMNS} FROM file_versions${
      where.length ? ` WHERE ${where.join(" AND ")}` : ""
    } ORDER BY id DESC LIMIT ?`;
    return this.#sql<FileVersion>(sql).all(...params, query.limit ?? 50);
  }
}

/** SHA-256 of a text, in hex: how versions name a content. */
export function contentHash(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}
