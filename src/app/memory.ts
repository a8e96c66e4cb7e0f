/**
 * The memory actions — search, stats, list the files, read lines of one,
 * replace one, remember a fact, log a note, write a section of MEMORY.md,
 * rebuild the index, and the history of every versioned file (list, show,
 * diff, revert) — each defined once: one zod schema for its input (the
 * one the OpenAPI document shows), its defaults, and its refusals as
 * {@linkcode ActionError}s. REST, the page and the CLI are translators over
 * these. It knows the home's memory (files and index) and nothing of any
 * wire format; where the files live on disk is memory's business.
 */

import { z } from "zod";
import { derivedText } from "../core/untrusted.ts";
import { MemoryWriteError } from "../memory/files.ts";
import { isVersioned, UndoConflict, type VersionDiff } from "../memory/history.ts";
import type { Memory, MemoryExcerpt } from "../memory/memory.ts";
import {
  type IndexProgress,
  type IndexStats,
  listMarkdown,
  type MemoryHit,
} from "../memory/search_index.ts";
import type { FileVersion, WrittenBy } from "../store/versions.ts";
import { PathError } from "../tools/sandbox/paths.ts";
import { ActionError, checkInput } from "./errors.ts";
import { createSourceActions, type SourceAccess, type SourceActions } from "./memory_sources.ts";

/** Most hits one search returns: a few good passages, not the whole memory. */
export const MAX_SEARCH_HITS = 50;
/** Most lines one read asks for (memory hands back fewer when its own cap is lower). */
export const MAX_READ_LINES = 5_000;
/** Longest fact or note: one entry, not a document (memory's own cap). */
export const MAX_TEXT_CHARS = 10_000;

/** A search: `q` fused by keyword and meaning (`mode`), best `limit` hits. Numbers may come as digits. */
export const searchMemoryInput = z.object({
  q: z.string().trim().min(1, "must not be empty").max(1_000),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_HITS).default(5),
  mode: z.enum(["hybrid", "keyword", "vector"]).default("hybrid"),
});
/** Which lines of a file to read. Numbers may come as a query string's digits. */
export const readMemoryQuery = z.object({
  from: z.coerce.number().int().min(1).default(1),
  lines: z.coerce.number().int().min(1).max(MAX_READ_LINES).default(MAX_READ_LINES),
});
/** A file's lines: `path` is relative to the memory directory (`memory/` in front is allowed). */
export const readMemoryInput = readMemoryQuery.extend({ path: z.string() });
/** A memory file's new content. */
export const replaceMemoryBody = z.strictObject({ content: z.string().max(1_000_000) });
/** A memory file (Markdown, under the memory directory) and its new content. */
export const replaceMemoryInput = replaceMemoryBody.extend({ path: z.string() });
/** A fact for MEMORY.md or a note for today's log. */
export const memoryTextInput = z.strictObject({
  text: z.string().trim().min(1, "must not be empty").max(MAX_TEXT_CHARS),
});
/** A section of MEMORY.md (by its heading, one line) and its new body. */
export const memorySectionInput = z.strictObject({
  section: z.string().trim().min(1).max(200),
  content: z.string().max(20_000),
});

/** The identity files the owner edits, by name. */
export const IDENTITY_FILES = ["SOUL.md", "USER.md", "HEARTBEAT.md"] as const;
/** An identity file's new content. */
export const writeIdentityInput = z.strictObject({
  name: z.enum(IDENTITY_FILES),
  content: z.string().max(1_000_000),
});
/** Which versions to list, newest first: one file's (`path` relative to the home or to memory/). */
export const historyInput = z.object({
  path: z.string().trim().min(1).max(1_000).optional(),
  tainted: z.union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .transform((value) => value === true || value === "true" || value === "1")
    .optional(),
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
/** A version's number, as digits or a number. */
const versionNumber = z.coerce.number({ error: "must be a version number" }).int().min(1);
/** A version, by its number. */
export const versionInput = z.object({ id: versionNumber });
/** Two versions of one file; without `to`, what the write `from` changed. */
export const diffInput = z.object({ from: versionNumber, to: versionNumber.optional() });

export type SearchMemoryInput = z.input<typeof searchMemoryInput>;
export type ReadMemoryInput = z.input<typeof readMemoryInput>;
export type ReplaceMemoryInput = z.input<typeof replaceMemoryInput>;
export type MemoryTextInput = z.input<typeof memoryTextInput>;
export type MemorySectionInput = z.input<typeof memorySectionInput>;
export type WriteIdentityInput = z.input<typeof writeIdentityInput>;
export type HistoryInput = z.input<typeof historyInput>;
export type VersionInput = z.input<typeof versionInput>;
export type DiffInput = z.input<typeof diffInput>;

export type { FileVersion, WrittenBy };

/** A version with what the file held then (null: the write deleted it). */
export type FileVersionWithContent = FileVersion & { content: string | null };
/** What a revert (or an undo) did: the version put back (or undone) and the new one it made (null: nothing changed). */
export interface RevertResult {
  reverted: FileVersion;
  version: FileVersion | null;
}

/** What a search found, and with which embedder (null: keywords alone). */
export interface MemorySearchResult {
  query: string;
  embedder: string | null;
  hits: MemoryHit[];
}

/** What a rebuild of the index changed, and the index's counts after it. */
export type ReindexResult = { changed: number } & IndexStats;

/**
 * The memory actions. Each checks its input and refuses with an
 * {@linkcode ActionError}: `invalid` naming `path` for a path outside memory
 * or not Markdown, `invalid` for text memory will not write, `not_found`
 * naming `path` for a file that is not there. A write returns the path it
 * wrote, relative to the memory directory.
 */
export interface MemoryActions extends SourceActions {
  search(input: SearchMemoryInput): Promise<MemorySearchResult>;
  /** The index's counts, once it has caught up with the files. */
  stats(): Promise<IndexStats>;
  /** Every Markdown file under the memory directory, sorted. */
  files(): Promise<string[]>;
  read(input: ReadMemoryInput): Promise<MemoryExcerpt>;
  replace(input: ReplaceMemoryInput, by: WrittenBy): Promise<string>;
  /** Adds a fact to MEMORY.md. */
  remember(input: MemoryTextInput, by: WrittenBy): Promise<string>;
  /** Adds a note to today's log. */
  log(input: MemoryTextInput, by: WrittenBy): Promise<string>;
  /** Replaces one section of MEMORY.md, or adds it. */
  writeSection(input: MemorySectionInput, by: WrittenBy): Promise<string>;
  /** Replaces an identity file (SOUL.md, USER.md, HEARTBEAT.md); returns its path in the home. */
  writeIdentity(input: WriteIdentityInput, by: WrittenBy): Promise<string>;
  /** Versions of memory, identity, skill and tool files, newest first. */
  history(input?: HistoryInput): Promise<FileVersion[]>;
  /** One version and its content; `not_found` naming `id`. */
  version(input: VersionInput): Promise<FileVersionWithContent>;
  /** The unified diff between two versions of one file, or of one write. */
  diff(input: DiffInput): Promise<VersionDiff>;
  /** Puts a file back as it was at a version, as a new version. */
  revert(input: VersionInput, by: WrittenBy): Promise<RevertResult>;
  /**
   * Takes back what one write changed, keeping later writes, as a new
   * version; `conflict` when later writes changed the same lines.
   */
  undo(input: VersionInput, by: WrittenBy): Promise<RevertResult>;
  /** Rebuilds the index from the files, telling `onProgress` as it goes. */
  reindex(onProgress?: (progress: IndexProgress) => void): Promise<ReindexResult>;
  /** Today's log, relative to the memory directory (`2026-03-01.md`). */
  todayPath(): string;
}

/**
 * The memory actions over a home's memory.
 *
 * @example
 * ```ts
 * const actions = createMemoryActions(memory, { roots: () => [workspace], web });
 * await actions.remember({ text: "Ada prefers tea." }, { author: "owner", via: "cli" }); // "MEMORY.md"
 * const { hits } = await actions.search({ q: "what does Ada drink?" });
 * ```
 */
export function createMemoryActions(memory: Memory, access: SourceAccess): MemoryActions {
  return {
    ...createSourceActions(memory, access),
    async search(input) {
      const { q, limit, mode } = checkInput(searchMemoryInput, input);
      const hits = await memory.search(q, { limit, mode });
      return { query: q, embedder: memory.embedderId, hits };
    },
    async stats() {
      await memory.ready;
      return memory.index.stats();
    },
    files: () => listMarkdown(memory.files.dir),
    read(input) {
      const { path, from, lines } = checkInput(readMemoryInput, input);
      return fileCall(path, () => memory.get(path, from, lines));
    },
    replace(input, by) {
      const { path, content } = checkInput(replaceMemoryInput, input);
      return fileCall(path, () => memory.replace(path, content, by));
    },
    remember(input, by) {
      const { text } = checkInput(memoryTextInput, input);
      return fileCall("MEMORY.md", () => memory.remember(written(text, by), by));
    },
    log(input, by) {
      const { text } = checkInput(memoryTextInput, input);
      return fileCall(memory.files.dailyPath(), () => memory.logNote(written(text, by), by));
    },
    writeSection(input, by) {
      const { section, content } = checkInput(memorySectionInput, input);
      return fileCall("MEMORY.md", () => memory.writeSection(section, written(content, by), by));
    },
    async writeIdentity(input, by) {
      const { name, content } = checkInput(writeIdentityInput, input);
      return await memory.history.files.replace(`identity/${name}`, content, by);
    },
    async history(input = {}) {
      const { path, tainted, before, limit } = checkInput(historyInput, input);
      await memory.scanned;
      return memory.history.list({
        path: path === undefined ? undefined : versionedPath(path),
        tainted,
        before,
        limit,
      });
    },
    async version(input) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const version = findVersion(memory, id, "id");
      return { ...version, content: memory.history.content(version) };
    },
    async diff(input) {
      const { from, to } = checkInput(diffInput, input);
      await memory.scanned;
      const older = findVersion(memory, from, "from");
      const newer = to === undefined ? undefined : findVersion(memory, to, "to");
      if (newer && newer.path !== older.path) {
        throw new ActionError(
          "invalid",
          `Versions ${from} and ${to} are of different files (${older.path}, ${newer.path})`,
          { field: "to" },
        );
      }
      return await memory.history.diff(older, newer);
    },
    async revert(input, by) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const reverted = findVersion(memory, id, "id");
      return { reverted, version: await memory.revert(reverted, by) };
    },
    async undo(input, by) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const undone = findVersion(memory, id, "id");
      try {
        return { reverted: undone, version: await memory.undo(undone, by) };
      } catch (error) {
        if (!(error instanceof UndoConflict)) throw error;
        throw new ActionError("conflict", error.message, { field: "id", cause: error });
      }
    },
    async reindex(onProgress) {
      const changed = await memory.reindex(onProgress);
      return { changed: changed.length, ...memory.index.stats() };
    },
    todayPath: () => memory.files.dailyPath(),
  };
}

/**
 * What a write stores: the text, labelled when the writing turn was tainted,
 * so every later turn that reads it is tainted too and an injection cannot
 * launder itself through memory. A person at the API, page or CLI writes
 * their own words (no taint).
 */
function written(text: string, by: WrittenBy): string {
  return by.taint ? derivedText(text, by.taint, `${by.via} in a turn`) : text;
}

/**
 * A path as the history names it (relative to the home): `identity/…`,
 * `skills/…`, `tools/…` and `memory/…` as they are, anything else taken as
 * relative to memory/ (`MEMORY.md`). `invalid` naming `path` when hob keeps
 * no versions of it.
 */
function versionedPath(path: string): string {
  const clean = path.replace(/^\.\//, "");
  const homePath = /^(memory|identity|skills|tools)\//.test(clean) ? clean : `memory/${clean}`;
  if (!isVersioned(homePath)) {
    throw new ActionError(
      "invalid",
      `hob keeps no versions of '${path}': only Markdown in memory/ and identity/, and files in skills/ and tools/`,
      { field: "path" },
    );
  }
  return homePath;
}

function findVersion(memory: Memory, id: number, field: string): FileVersion {
  const version = memory.history.get(id);
  if (!version) throw new ActionError("not_found", `No version ${id}`, { field });
  return version;
}

/**
 * Runs a call on the file at `path`, turning memory's refusals into the
 * ActionError of the same meaning. A write the disk refused (a cause inside)
 * is not the caller's fault and goes on as it is.
 */
async function fileCall<T>(path: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw refusal(error, path);
  }
}

function refusal(error: unknown, path: string): unknown {
  if (error instanceof PathError || isNotMarkdown(error)) {
    return new ActionError("invalid", (error as Error).message, { field: "path", cause: error });
  }
  if (error instanceof Deno.errors.NotFound) {
    return new ActionError("not_found", `No memory file '${path}'`, {
      field: "path",
      cause: error,
    });
  }
  if (error instanceof MemoryWriteError && !error.cause) {
    return new ActionError("invalid", error.message, { cause: error });
  }
  return error;
}

/** Memory's refusal of a file that is not Markdown (it says so in words only). */
function isNotMarkdown(error: unknown): boolean {
  return error instanceof Error && /^Only Markdown/.test(error.message);
}
