/**
 * The Agent Skills hob installed (hob.db's `skill_installs`): where each came
 * from, who installed it, and the hash of the files the owner accepted with
 * what was granted — the tools its instructions may run unasked, the hosts
 * its scripts may reach. Knows rows, not folders, nor how a folder is hashed.
 */

import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** One installed skill. */
export interface SkillInstallRow {
  name: string;
  source: string;
  installed_by: string;
  installed_at: string;
  /** The files as installed. */
  hash: string;
  /** The files the owner accepted; null until accepted. */
  accepted_hash: string | null;
  accepted_at: string | null;
  granted_tools: string[];
  granted_hosts: string[];
}

interface Row extends Omit<SkillInstallRow, "granted_tools" | "granted_hosts"> {
  granted_tools: string;
  granted_hosts: string;
}

/**
 * The installed skills, by name.
 *
 * @example
 * ```ts
 * const installs = new SqliteSkillInstalls(db);
 * installs.add({ name: "pdf", source: "/tmp/pdf", installed_by: "cli", hash });
 * installs.accept("pdf", hash, { tools: ["read_file"], hosts: [] });
 * ```
 */
export class SqliteSkillInstalls {
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#sql = statements(db);
  }

  /** Every installed skill, by name. */
  list(): SkillInstallRow[] {
    return this.#sql<Row>("SELECT * FROM skill_installs ORDER BY name").all().map(fromRow);
  }

  get(name: string): SkillInstallRow | undefined {
    const row = this.#sql<Row>("SELECT * FROM skill_installs WHERE name = ?").get(name);
    return row ? fromRow(row) : undefined;
  }

  /** Records a skill just installed, not accepted yet (replacing a row left by a removed one). */
  add(install: { name: string; source: string; installed_by: string; hash: string }): void {
    this.#sql(
      `INSERT INTO skill_installs (name, source, installed_by, installed_at, hash)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET source = excluded.source,
         installed_by = excluded.installed_by, installed_at = excluded.installed_at,
         hash = excluded.hash, accepted_hash = NULL, accepted_at = NULL,
         granted_tools = '[]', granted_hosts = '[]'`,
    ).run(install.name, install.source, install.installed_by, timestamp(), install.hash);
  }

  /** Pins the files with `hash` as accepted, with what was granted. */
  accept(name: string, hash: string, granted: { tools: string[]; hosts: string[] }): void {
    this.#sql(
      `UPDATE skill_installs SET accepted_hash = ?, accepted_at = ?, granted_tools = ?,
         granted_hosts = ? WHERE name = ?`,
    ).run(hash, timestamp(), JSON.stringify(granted.tools), JSON.stringify(granted.hosts), name);
  }

  remove(name: string): void {
    this.#sql("DELETE FROM skill_installs WHERE name = ?").run(name);
  }
}

function fromRow(row: Row): SkillInstallRow {
  return {
    ...row,
    granted_tools: JSON.parse(row.granted_tools) as string[],
    granted_hosts: JSON.parse(row.granted_hosts) as string[],
  };
}
