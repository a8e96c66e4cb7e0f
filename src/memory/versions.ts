/**
 * The versions of the files that shape the agent — memory, identity, skills
 * and user tools — kept in hob.db: each write hob makes is
 * recorded with its author under the file's write lock; an edit made outside
 * hob (an editor, a sync tool) is recorded as the owner's when a watcher or
 * the start-up scan sees it. Nothing is ever lost: a revert is a new version.
 */

import type { DatabaseSync } from "node:sqlite";
import { join, relative, sep } from "node:path";
import {
  contentHash,
  type FileVersion,
  SqliteVersions,
  type VersionQuery,
  type WrittenBy,
} from "../store/versions.ts";
import { withWriteLock } from "../store/transaction.ts";
import { MemoryFiles, type WriteRecorder } from "./files.ts";

/** The directories of the hob home whose files are versioned. */
export const VERSIONED_DIRS = ["memory", "identity", "skills", "tools"] as const;
/** Files larger than this are not versioned (an ingested book is kept, not copied). */
export const MAX_VERSIONED_BYTES = 5_000_000;
/** How a change seen on disk is recorded: the owner's, made in an editor. */
const EDITOR: WrittenBy = { author: "owner", via: "editor" };
/** How a file found with no version yet is first recorded (before versions were kept). */
const FOUND: WrittenBy = { author: "owner", via: "on disk" };
/** How long changes seen on disk settle before they are recorded. */
const WATCH_DEBOUNCE_MS = 300;

/** The diff library, loaded when a diff is first asked for (not at start). */
type DiffLibrary = typeof import("diff");
let diffLibrary: DiffLibrary | undefined;
/** The three-way merge an undo is, loaded with the first undo. */
let mergeLibrary: typeof import("node-diff3") | undefined;

/** Loads the diff and merge libraries once; {@linkcode FileVersions.undone} needs them loaded. */
export async function loadDiff(): Promise<DiffLibrary> {
  mergeLibrary ??= await import("node-diff3");
  return diffLibrary ??= await import("diff");
}

/** Raised when a write cannot be undone: later writes changed the same lines. */
export class UndoConflict extends Error {
  override name = "UndoConflict";
}

/** Two versions of one file, and the unified diff between them. */
export interface VersionDiff {
  path: string;
  /** Null: from nothing (the file's first version). */
  from: FileVersion | null;
  to: FileVersion;
  /** A unified diff (`---`/`+++` headers, `@@` hunks). */
  diff: string;
}

/**
 * The versions of a home's files, and the writers that record them.
 *
 * @example
 * ```ts
 * const versions = new FileVersions({ home, db, now: () => new Date() });
 * await versions.files.replace("identity/USER.md", "I am Ada.\n", { author: "owner", via: "cli" });
 * versions.list({ path: "identity/USER.md" })[0].via; // "cli"
 * ```
 */
export class FileVersions {
  readonly #recorded: SqliteVersions;
  /** The writer of memory/, whose writes are recorded. */
  readonly memory: MemoryFiles;
  /** The writer of the home's other versioned files (identity, skills, tools). */
  readonly files: MemoryFiles;
  readonly #home: string;
  readonly #db: DatabaseSync;

  constructor(options: { home: string; db: DatabaseSync; now: () => Date }) {
    this.#home = options.home;
    this.#db = options.db;
    this.#recorded = new SqliteVersions(options.db, options.now);
    this.memory = new MemoryFiles({
      dir: join(options.home, "memory"),
      now: options.now,
      recorder: this.#recorder("memory"),
    });
    this.files = new MemoryFiles({
      dir: options.home,
      now: options.now,
      recorder: this.#recorder(""),
    });
  }

  /**
   * The recorder for a writer of the directory `under` (relative to the home:
   * `memory`, or "" for the home itself): each write becomes a version, after
   * the content found there when no version has it yet (an edit nobody saw).
   * Both in one write, which waits while another program holds hob.db.
   */
  #recorder(under: string): WriteRecorder {
    return async (path, before, after, by) => {
      const homePath = under ? `${under}/${path}` : path;
      if (!isVersioned(homePath)) return;
      await withWriteLock(this.#db, () => {
        const found = this.#recorded.latest(homePath) ? EDITOR : FOUND;
        if (fits(before)) this.#recorded.record(homePath, before, found);
        if (fits(after)) this.#recorded.record(homePath, after, by);
      });
    };
  }

  list(query: VersionQuery = {}): FileVersion[] {
    return this.#recorded.list(query);
  }

  get(id: number): FileVersion | undefined {
    return this.#recorded.get(id);
  }

  /** The newest version of `path` (relative to the home), if any. */
  latest(path: string): FileVersion | undefined {
    return this.#recorded.latest(path);
  }

  /** The version of the same file before `version`, if any. */
  previous(version: FileVersion): FileVersion | undefined {
    return this.#recorded.previous(version);
  }

  content(version: FileVersion): string | null {
    return this.#recorded.content(version);
  }

  /**
   * The diff from `from` to `to` (both of one file); without `to`, what the
   * write `from` made: its predecessor to it.
   */
  async diff(from: FileVersion, to?: FileVersion): Promise<VersionDiff> {
    const { createTwoFilesPatch } = await loadDiff();
    const [older, newer] = to ? [from, to] : [this.#recorded.previous(from) ?? null, from];
    if (older && older.path !== newer.path) {
      throw new RangeError(
        `Versions ${older.id} and ${newer.id} are of different files (${older.path}, ${newer.path})`,
      );
    }
    const label = (version: FileVersion | null) =>
      version ? `${newer.path}@${version.id}` : "/dev/null";
    const diff = createTwoFilesPatch(
      label(older),
      label(newer),
      older ? this.content(older) ?? "" : "",
      this.content(newer) ?? "",
      undefined,
      undefined,
      { context: 3 },
    ).replace(/^=+\n/, "");
    return { path: newer.path, from: older, to: newer, diff };
  }

  /**
   * What undoing the write `version` makes of the file's `current` content
   * (null: no file): its change taken back, later writes kept. Throws
   * {@linkcode UndoConflict} when later writes changed the same lines.
   */
  undone(version: FileVersion, current: string | null): string | null {
    if (!mergeLibrary) throw new Error("loadDiff() first");
    const previous = this.#recorded.previous(version);
    if (!previous && version.via === FOUND.via) {
      throw new UndoConflict(
        `Version ${version.id} is ${version.path} as hob first found it, not a write; there is nothing to undo`,
      );
    }
    const before = previous ? this.content(previous) : null;
    const after = this.content(version);
    if (current === after) return before;
    const conflict = () =>
      new UndoConflict(
        `Version ${version.id} of ${version.path} cannot be undone: later writes changed the same lines; revert to a version instead`,
      );
    if (after === null || current === null) throw conflict();
    // A three-way merge: from the write's result, to now (later writes) and to before it (the undo).
    const lines: string[] = [];
    for (
      const region of mergeLibrary.diff3Merge(
        current.split("\n"),
        after.split("\n"),
        (before ?? "").split("\n"),
      )
    ) {
      if (region.ok) {
        lines.push(...region.ok);
        continue;
      }
      const settled = region.conflict && besideOnly(region.conflict);
      if (!settled) throw conflict();
      lines.push(...settled);
    }
    const result = lines.join("\n");
    return before === null && result === "" ? null : result;
  }

  /**
   * Records every versioned file whose content no version has: files from
   * before versions were kept, and edits made while hob was not running.
   * Returns how many were recorded.
   */
  async scan(): Promise<number> {
    let recorded = 0;
    for (const dir of VERSIONED_DIRS) {
      for (const path of await walk(join(this.#home, dir))) {
        const homePath = relative(this.#home, path).split(sep).join("/");
        if (!isVersioned(homePath)) continue;
        const before = this.#recorded.latest(homePath);
        // Most files are as recorded: only a change found is recorded under the write lock.
        const content = await Deno.readTextFile(path).catch(() => null);
        if (before && content !== null && before.hash === contentHash(content)) continue;
        await this.observe(homePath);
        if (this.#recorded.latest(homePath)?.id !== before?.id) recorded++;
      }
    }
    return recorded;
  }

  /**
   * Records what `path` (relative to the home) holds now, as the owner's
   * edit, in turn with hob's own writes to it (under the same lock).
   */
  observe(path: string): Promise<unknown> {
    if (path.startsWith("memory/")) {
      return this.memory.observe(path.slice("memory/".length), EDITOR);
    }
    return this.files.observe(path, EDITOR);
  }

  /**
   * Records changes to the versioned directories as they happen on disk,
   * until the returned watcher is closed; `onMemoryChange` hears the paths
   * (relative to memory/) of memory's files among them.
   */
  watch(onMemoryChange?: (path: string) => void): Deno.FsWatcher | null {
    const dirs = VERSIONED_DIRS.map((dir) => join(this.#home, dir)).filter(exists);
    if (dirs.length === 0) return null;
    const watcher = Deno.watchFs(dirs, { recursive: true });
    const changed = new Set<string>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      for (const path of changed) {
        this.observe(path).catch((error) =>
          console.error(`hob: recording ${path}: ${(error as Error).message}`)
        );
        if (path.startsWith("memory/")) onMemoryChange?.(path.slice("memory/".length));
      }
      changed.clear();
    };
    (async () => {
      for await (const event of watcher) {
        for (const path of event.paths) {
          const homePath = relative(this.#home, path).split(sep).join("/");
          if (isVersioned(homePath)) changed.add(homePath);
        }
        if (changed.size === 0) continue;
        clearTimeout(timer);
        timer = setTimeout(flush, WATCH_DEBOUNCE_MS);
      }
    })().catch(() => {/* closed */});
    return watcher;
  }
}

/**
 * Whether hob versions the file at `path` (relative to the home): under one
 * of {@linkcode VERSIONED_DIRS}, no hidden part (locks, temporary files), and
 * in memory and identity only Markdown.
 */
export function isVersioned(path: string): boolean {
  const parts = path.split("/");
  if (parts.length < 2 || !(VERSIONED_DIRS as readonly string[]).includes(parts[0])) return false;
  if (parts.some((part) => part === "" || part === ".." || part.startsWith("."))) return false;
  if ((parts[0] === "memory" || parts[0] === "identity") && !path.endsWith(".md")) return false;
  return !path.endsWith(".tmp");
}

function fits(content: string | null): boolean {
  return content === null || content.length <= MAX_VERSIONED_BYTES;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}

/** Every file under `dir`, skipping hidden entries and symbolic links. */
async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return found;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...await walk(path));
    else if (entry.isFile) found.push(path);
  }
  return found;
}

/**
 * A merge region both sides changed, settled when later writes only added
 * lines (`now` is `written` with lines inserted) and the undo only takes
 * lines away (`undone` is `written` with lines removed): those lines go, the
 * added ones stay where they are. Anything else is a real conflict
 * (undefined).
 */
function besideOnly(
  { a: now, o: written, b: undone }: { a: string[]; o: string[]; b: string[] },
): string[] | undefined {
  const placed = within(written, now);
  const kept = within(undone, written);
  if (!placed || !kept) return undefined;
  const gone = new Set(placed.filter((_, i) => !kept.includes(i)));
  return now.filter((_, i) => !gone.has(i));
}

/** Where each of `part`'s lines is in `whole`, in order (a subsequence), or undefined. */
function within(part: string[], whole: string[]): number[] | undefined {
  const at: number[] = [];
  let from = 0;
  for (const line of part) {
    const found = whole.indexOf(line, from);
    if (found < 0) return undefined;
    at.push(found);
    from = found + 1;
  }
  return at;
}
