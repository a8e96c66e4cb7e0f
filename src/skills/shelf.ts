/**
 * The Agent Skills of a home: every folder under HOME/skills holding a
 * SKILL.md, each with its state — `active` while its files hash to what the
 * owner accepted, `pending` until accepted, `changed` when its files no
 * longer match, `invalid` when its SKILL.md breaks the format. Only an active
 * skill reaches a model, and what it reads (the instructions, a file) is read
 * from files whose hash was checked at that read. A folder's hash is kept
 * while none of its files' sizes and times move, so listing every turn reads
 * no file twice. Knows folders and installs, not how they are shown.
 */

import { join } from "node:path";
import type { SkillInstallRow, SqliteSkillInstalls } from "../store/skill_installs.ts";
import type { ParsedSkill, SkillFrontMatter } from "./format.ts";
import { readSkillFolder, type SkillFile, type SkillFolder, SkillFolderError } from "./folder.ts";
import { textOf } from "./review.ts";

/** The file every skill folder holds. */
export const SKILL_FILE = "SKILL.md";

/** Where a skill stands. */
export type SkillState = "active" | "pending" | "changed" | "invalid";

/** One skill folder of the home, as the shelf sees it. */
export interface ShelvedSkill {
  name: string;
  /** From its front matter; "" when invalid. */
  description: string;
  state: SkillState;
  /** Why it is invalid. */
  problem?: string;
  /** Its install record; null for a folder put there by hand. */
  install: SkillInstallRow | null;
  /** The hash of its files now. */
  hash: string;
}

/** A skill read whole: its files, front matter and instructions. */
export interface OpenedSkill {
  skill: ShelvedSkill;
  folder: SkillFolder;
  /** Null when invalid. */
  front: SkillFrontMatter | null;
  body: string;
  warnings: string[];
}

interface Cached {
  fingerprint: string;
  folder: SkillFolder;
  parsed: ParsedSkill;
}

/**
 * The skills under `dir` with their installs.
 *
 * @example
 * ```ts
 * const shelf = new SkillShelf(join(home, "skills"), new SqliteSkillInstalls(db));
 * (await shelf.list()).filter((skill) => skill.state === "active");
 * ```
 */
export class SkillShelf {
  readonly dir: string;
  readonly installs: SqliteSkillInstalls;
  readonly #cache = new Map<string, Cached>();

  constructor(dir: string, installs: SqliteSkillInstalls) {
    this.dir = dir;
    this.installs = installs;
  }

  /** Every skill folder, by name. */
  async list(): Promise<ShelvedSkill[]> {
    const names = await this.#folders();
    const opened = await Promise.all(names.map((name) => this.open(name)));
    return opened.filter((each) => each !== null).map((each) => each.skill);
  }

  /** The skills a model may use now. */
  async active(): Promise<ShelvedSkill[]> {
    return (await this.list()).filter((skill) => skill.state === "active");
  }

  /**
   * One skill read whole; null when there is no such folder. With `fresh`,
   * every file is read and hashed now (what a model is about to read);
   * otherwise a folder whose files' sizes and times did not move is not read again.
   */
  async open(name: string, options: { fresh?: boolean } = {}): Promise<OpenedSkill | null> {
    // Defence in depth (the actions check it first): a name is one folder here, never a path out.
    if (name === "." || name === ".." || /[/\\]/.test(name)) return null;
    const dir = join(this.dir, name);
    let cached: Cached;
    try {
      if (options.fresh) this.#cache.delete(name);
      cached = await this.#read(name, dir);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      if (!(error instanceof SkillFolderError)) throw error;
      return this.#invalid(name, error.message);
    }
    const install = this.installs.get(name) ?? null;
    const { parsed, folder } = cached;
    if (!parsed.ok) {
      const problem = parsed.problems.map((each) => `'${each.field}' ${each.rule}`).join("; ");
      return { ...this.#invalid(name, problem, folder.hash, install), folder };
    }
    const state: SkillState = !install?.accepted_hash
      ? "pending"
      : install.accepted_hash === folder.hash
      ? "active"
      : "changed";
    return {
      skill: { name, description: parsed.front.description, state, install, hash: folder.hash },
      folder,
      front: parsed.front,
      body: parsed.body,
      warnings: parsed.warnings,
    };
  }

  /** Forgets what was read of `name` (after it was removed or replaced). */
  forget(name: string): void {
    this.#cache.delete(name);
  }

  async #read(name: string, dir: string): Promise<Cached> {
    const fingerprint = await fingerprintOf(dir);
    const cached = this.#cache.get(name);
    if (cached?.fingerprint === fingerprint) return cached;
    // Nothing hidden is copied in at install: a hidden file here came later, and is a change.
    const folder = await readSkillFolder(dir, { hidden: true });
    const skillMd = folder.files.find((file) => file.path === SKILL_FILE);
    if (!skillMd) throw new SkillFolderError(`it holds no ${SKILL_FILE}`);
    // The YAML parser loads with the first skill read: a home without skills never loads it.
    const { parseSkillMd } = await import("./format.ts");
    const parsed = parseSkillMd(textOf(skillMd.bytes) ?? "", name);
    const fresh = { fingerprint, folder, parsed };
    this.#cache.set(name, fresh);
    return fresh;
  }

  #invalid(
    name: string,
    problem: string,
    hash = "",
    install = this.installs.get(name) ?? null,
  ): OpenedSkill {
    return {
      skill: { name, description: "", state: "invalid", problem, install, hash },
      folder: { files: [], hash },
      front: null,
      body: "",
      warnings: [],
    };
  }

  async #folders(): Promise<string[]> {
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (entry.isDirectory && !entry.name.startsWith(".")) names.push(entry.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return names.sort();
  }
}

/**
 * A file of a skill by its path inside the folder, or null: only a file the
 * folder read holds (no `..`, nothing hidden, no link).
 */
export function skillFile(opened: OpenedSkill, path: string): SkillFile | null {
  const wanted = path.replace(/^\.\//, "");
  return opened.folder.files.find((file) => file.path === wanted) ?? null;
}

/** Every file's path, size and modification time under `dir`: what moves when any file does. */
async function fingerprintOf(dir: string): Promise<string> {
  const parts: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for await (const entry of Deno.readDir(current)) {
      const full = join(current, entry.name);
      const info = await Deno.lstat(full);
      parts.push(`${full}:${info.size}:${info.mtime?.getTime()}:${info.isSymlink}`);
      if (entry.isDirectory) pending.push(full);
    }
  }
  return parts.sort().join("\n");
}
