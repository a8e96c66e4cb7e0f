/**
 * The Markdown files of memory, written safely: every change is a whole new
 * file, synced to disk, then renamed into place (a crash leaves the old file
 * or the new one, never half), and changes are serialised — within this
 * process by a queue, across processes by an exclusive lock — so concurrent
 * writers (chat, scheduler, API, a CLI command) never lose each other's
 * entries.
 */

import { dirname, join } from "node:path";
import type { WrittenBy } from "../store/versions.ts";
import { createHash } from "node:crypto";
import { vouched } from "../core/untrusted.ts";
import { localDate } from "./dates.ts";

/** Longest entry accepted, so one call cannot bloat MEMORY.md. */
export const MAX_ENTRY_CHARS = 10_000;
/** How this writer's temporary files start: hidden (never indexed) and its own to sweep. */
const TEMP_PREFIX = ".memory-write-";

/** Raised for a write that cannot be done; the message says why. */
export class MemoryWriteError extends Error {
  override name = "MemoryWriteError";
}

/** A file is not as the writer read it: someone wrote to it in between. */
export class ChangedSinceReadError extends MemoryWriteError {
  override name = "ChangedSinceReadError";
  readonly path: string;
  constructor(path: string) {
    super(`${path} changed since you read it: read it again`);
    this.path = path;
  }
}

/** Where things are in the memory directory. */
export interface MemoryLayout {
  /** HOME/memory (or the hob home itself, for the identity files, skills and tools). */
  dir: string;
  now(): Date;
  /**
   * Told of every write, under the write's lock, with the content before
   * (null: there was no file) and after (null: deleted): a file's versions.
   * The write is done when what it returns has settled.
   */
  recorder?: WriteRecorder;
}

/** Hears each write of a {@linkcode MemoryFiles}, path relative to its directory. */
export type WriteRecorder = (
  path: string,
  before: string | null,
  after: string | null,
  by: WrittenBy,
) => void | Promise<void>;

/**
 * The writer for one memory directory.
 *
 * @example
 * ```ts
 * const files = new MemoryFiles({ dir: `${home}/memory`, now: () => new Date() });
 * await files.remember("Ada prefers tea.");
 * ```
 */
export class MemoryFiles {
  readonly #layout: MemoryLayout;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #swept = new Set<string>();

  constructor(layout: MemoryLayout) {
    this.#layout = layout;
  }

  get dir(): string {
    return this.#layout.dir;
  }

  /** MEMORY.md, relative to the memory directory. */
  get longTermPath(): string {
    return "MEMORY.md";
  }

  /** A day's log, relative to the memory directory. */
  dailyPath(date = this.#layout.now()): string {
    return `${localDate(date)}.md`;
  }

  /**
   * Adds a timestamped entry to MEMORY.md: at the end of its "Facts" section
   * when it has one, else at the end of the file. Returns the relative path.
   */
  remember(text: string, by: WrittenBy): Promise<string> {
    const entry = clean(text);
    return this.#change(this.longTermPath, by, (current) => {
      const line = `- [${stampOf(this.#layout.now())}] ${indentContinuation(entry)}`;
      const lines = (current || "# Memory\n").replace(/\n+$/, "").split("\n");
      const facts = lines.findIndex((l) => /^#{1,6}\s+facts\s*$/i.test(l));
      if (facts < 0) return `${lines.join("\n")}\n${line}\n`;
      let end = facts + 1;
      while (end < lines.length && !/^#{1,6}\s/.test(lines[end])) end++;
      // After the section's last non-blank line.
      let at = end;
      while (at > facts + 1 && !lines[at - 1].trim()) at--;
      lines.splice(at, 0, ...(at === facts + 1 ? ["", line] : [line]));
      return `${lines.join("\n")}\n`;
    });
  }

  /** Appends a timestamped note to today's log. Returns the relative path written. */
  logNote(text: string, by: WrittenBy, options: { heading?: string } = {}): Promise<string> {
    const entry = clean(text);
    const now = this.#layout.now();
    const path = this.dailyPath(now);
    return this.#change(path, by, (current) => {
      const time = stampOf(now).slice(11);
      const base = ensureNewline(current || `# ${localDate(now)}\n`);
      if (options.heading) return `${base}\n## ${time} ${options.heading}\n\n${entry}\n`;
      return `${base}- ${time} ${indentContinuation(entry)}\n`;
    });
  }

  /**
   * Replaces the body of the section titled `section` in MEMORY.md (any
   * heading level; the first match), or adds it as a new `##` section.
   */
  writeSection(section: string, content: string, by: WrittenBy): Promise<string> {
    const title = section.trim().replace(/^#+\s*/, "");
    if (!title || title.includes("\n")) {
      throw new MemoryWriteError("The section name must be one line of text");
    }
    const body = content.trim();
    return this.#change(this.longTermPath, by, (current) => {
      const lines = (current || "# Memory\n").split("\n");
      const start = lines.findIndex((line) => {
        const heading = /^(#{1,6})\s+(.+?)\s*$/.exec(line);
        return heading !== null && heading[2].toLowerCase() === title.toLowerCase();
      });
      if (start < 0) return `${ensureNewline(lines.join("\n"))}\n## ${title}\n\n${body}\n`;
      const level = /^(#{1,6})/.exec(lines[start])![1].length;
      let end = start + 1;
      while (end < lines.length) {
        const heading = /^(#{1,6})\s/.exec(lines[end]);
        if (heading && heading[1].length <= level) break;
        end++;
      }
      const after = lines.slice(end);
      const replaced = [...lines.slice(0, start + 1), "", ...(body ? [body, ""] : []), ...after];
      return ensureNewline(replaced.join("\n").replace(/\n{3,}/g, "\n\n"));
    });
  }

  /** Reads a memory file (relative path); empty when it does not exist. */
  async read(path: string): Promise<string> {
    return await this.#readOrNull(path) ?? "";
  }

  /** Replaces a whole memory file, as an editor would. */
  replace(path: string, content: string, by: WrittenBy): Promise<string> {
    return this.#change(path, by, () => content);
  }

  /**
   * Rewrites a file without its untrusted labels, as one version: the owner
   * vouched for its text after reading it. Refuses (Deno.errors.NotFound)
   * when there is no such file, and with {@linkcode ChangedSinceReadError}
   * when `read` (the SHA-256 of the text the owner read, hex) is not its hash now.
   */
  vouch(path: string, by: WrittenBy, read?: string): Promise<string> {
    return this.#change(path, by, (current, exists) => {
      if (!exists) throw new Deno.errors.NotFound(`${path} does not exist`);
      if (read !== undefined && textHash(current) !== read) throw new ChangedSinceReadError(path);
      return vouched(current);
    });
  }

  /** Writes a new file; refuses (Deno.errors.AlreadyExists) when there is one. */
  create(path: string, content: string, by: WrittenBy): Promise<string> {
    return this.#change(path, by, (_current, exists) => {
      if (exists) throw new Deno.errors.AlreadyExists(`${path} exists already`);
      return content;
    });
  }

  /**
   * Rewrites a file from what it holds now (null: no file), under the lock;
   * `change` returns the next content, null to delete it.
   */
  update(path: string, by: WrittenBy, change: (current: string | null) => string | null) {
    return this.#change(path, by, (current, exists) => change(exists ? current : null));
  }

  /** Deletes a file, if it is there. */
  remove(path: string, by: WrittenBy): Promise<string> {
    return this.#change(path, by, () => null);
  }

  /**
   * Tells the recorder what the file holds now, in turn with the writes (an
   * edit made outside hob, seen by a watcher): a write running meanwhile
   * cannot be taken for the edit.
   */
  observe(path: string, by: WrittenBy): Promise<string> {
    return this.#change(path, by, undefined);
  }

  /**
   * Reads, changes and atomically rewrites one file under both locks. The
   * change function sees the current content ("" for a new file) and returns
   * the next (null: delete the file); without one, nothing is written.
   */
  #change(path: string, by: WrittenBy, change: Change | undefined): Promise<string> {
    const run = this.#queue.then(() => this.#locked(path, by, change));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #locked(path: string, by: WrittenBy, change: Change | undefined): Promise<string> {
    const dir = this.#layout.dir;
    await Deno.mkdir(dir, { recursive: true });
    const lock = await Deno.open(join(dir, ".write.lock"), { create: true, write: true });
    try {
      await lock.lock(true);
      const current = await this.#readOrNull(path);
      const next = change ? change(current ?? "", current !== null) : current;
      if (change) await this.#put(path, next);
      await this.#layout.recorder?.(path, current, next, by);
      return path;
    } finally {
      await lock.unlock().catch(() => {});
      lock.close();
    }
  }

  async #readOrNull(path: string): Promise<string | null> {
    try {
      return await Deno.readTextFile(join(this.#layout.dir, path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  /** Puts `next` in place atomically, or deletes the file for null. */
  async #put(path: string, next: string | null): Promise<void> {
    const file = join(this.#layout.dir, path);
    if (next === null) {
      await Deno.remove(file).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      return;
    }
    const folder = dirname(file);
    await Deno.mkdir(folder, { recursive: true });
    await this.#sweep(folder);
    const temp = join(folder, `${TEMP_PREFIX}${crypto.randomUUID()}.tmp`);
    try {
      await writeSynced(temp, next);
      await Deno.rename(temp, file);
      await syncDirectory(folder);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw new MemoryWriteError(`Cannot write ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /**
   * Removes temporary files a writer killed mid-write left in `folder`, once
   * per folder. Only under the write lock: no live writer can own one then.
   */
  async #sweep(folder: string): Promise<void> {
    if (this.#swept.has(folder)) return;
    this.#swept.add(folder);
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isFile && entry.name.startsWith(TEMP_PREFIX) && entry.name.endsWith(".tmp")) {
        await Deno.remove(join(folder, entry.name)).catch(() => {});
      }
    }
  }
}

/** A change of a file's content: null deletes it. */
type Change = (current: string, exists: boolean) => string | null;

/**
 * Writes a new file and waits until its bytes are on disk, so the rename that
 * follows cannot expose an empty file after a power cut.
 */
async function writeSynced(path: string, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  try {
    for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
    await file.syncData();
  } finally {
    file.close();
  }
}

/** Makes a rename in `dir` durable; best effort where directories cannot be opened. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: Deno.FsFile | undefined;
  try {
    handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // Not every platform lets a directory be opened or synced; the rename stands anyway.
  } finally {
    handle?.close();
  }
}

function clean(text: string): string {
  const entry = text.trim();
  if (!entry) throw new MemoryWriteError("Nothing to write: the text is empty");
  if (entry.length > MAX_ENTRY_CHARS) {
    throw new MemoryWriteError(
      `The text is longer than ${MAX_ENTRY_CHARS} characters; save a summary instead`,
    );
  }
  return entry;
}

/** `YYYY-MM-DD HH:MM` in local time. */
function stampOf(date: Date): string {
  const hh = String(date.getHours()).padStart(2, "0");
  const mm = String(date.getMinutes()).padStart(2, "0");
  return `${localDate(date)} ${hh}:${mm}`;
}

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** Multi-line entries stay inside their list item. */
function indentContinuation(text: string): string {
  return text.replace(/\n/g, "\n  ");
}

/**
 * The SHA-256 of a text, hex: what a view of a file sends back to say which
 * text the owner read.
 *
 * @example
 * ```ts
 * textHash(""); // "e3b0c442…"
 * ```
 */
export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
