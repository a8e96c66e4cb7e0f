/**
 * The memory actions — search, stats, list the files, read lines of one,
 * replace one, remember a fact, log a note, write a section of MEMORY.md,
 * rebuild the index, add and refresh sources (memory_sources.ts), and the
 * versions of every versioned file (list, show, diff, revert, undo:
 * memory_versions.ts) — each defined once: one zod schema for its input (the
 * one the OpenAPI document shows), its defaults, and its refusals as
 * {@linkcode ActionError}s. REST, the page and the CLI are translators over
 * these. It knows the home's memory (files and index) and nothing of any
 * wire format; where the files live on disk is memory's business.
 */

import { z } from "zod";
import { derivedText } from "../core/untrusted.ts";
import { ChangedSinceReadError, MemoryWriteError } from "../memory/files.ts";
import type { Memory, MemoryExcerpt } from "../memory/memory.ts";
import {
  type IndexProgress,
  type IndexStats,
  listMarkdown,
  type MemoryHit,
} from "../memory/search_index.ts";
import type { FileVersion, WrittenBy } from "../store/versions.ts";
import { PathError } from "../sandbox/paths.ts";
import { ActionError, checkInput } from "./errors.ts";
import type { VersionActions } from "./memory_versions.ts";
import type { SourceAccess, SourceActions } from "./memory_sources.ts";

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
  /** `meaning` (or `vector`, its older name) searches by embeddings alone, `keyword` by BM25 alone. */
  mode: z.enum(["hybrid", "keyword", "meaning", "vector"]).default("hybrid")
    .transform((mode) => mode === "meaning" ? "vector" : mode),
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

/**
 * A memory file the owner vouches for, by its path under memory/, and the
 * SHA-256 (hex) of the text they read, which binds the vouching to it.
 */
export const trustMemoryInput = z.strictObject({
  path: z.string().trim().min(1, "must not be empty").max(1_000),
  read: z.string().regex(/^[0-9a-f]{64}$/, "must be the SHA-256 of the text read, in hex")
    .optional(),
});

/** The identity files the owner edits, by name. */
export const IDENTITY_FILES = ["SOUL.md", "USER.md", "HEARTBEAT.md"] as const;
/** An identity file's new content. */
export const writeIdentityInput = z.strictObject({
  name: z.enum(IDENTITY_FILES),
  content: z.string().max(1_000_000),
});
export type SearchMemoryInput = z.input<typeof searchMemoryInput>;
export type ReadMemoryInput = z.input<typeof readMemoryInput>;
export type ReplaceMemoryInput = z.input<typeof replaceMemoryInput>;
export type MemoryTextInput = z.input<typeof memoryTextInput>;
export type MemorySectionInput = z.input<typeof memorySectionInput>;
export type WriteIdentityInput = z.input<typeof writeIdentityInput>;
export type TrustMemoryInput = z.input<typeof trustMemoryInput>;

/** What vouching for a file did: `changed` false when it held no text from outside. */
export interface TrustResult {
  path: string;
  changed: boolean;
  /** The owner's new version of the file; null when nothing changed. */
  version: FileVersion | null;
}

export type { FileVersion, IndexProgress, WrittenBy };
export type {
  DiffInput,
  FileVersionWithContent,
  ListVersionsInput,
  RevertResult,
  VersionInput,
} from "./memory_versions.ts";

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
export interface MemoryActions extends SourceActions, VersionActions {
  search(input: SearchMemoryInput): Promise<MemorySearchResult>;
  /** The index's counts, once it has caught up with the files. */
  stats(): Promise<IndexStats>;
  /** Every Markdown file under the memory directory, sorted. */
  files(): Promise<string[]>;
  read(input: ReadMemoryInput): Promise<MemoryExcerpt>;
  /** A memory file whole, as it is on disk (MCP's resources); refused as a read is. */
  content(input: { path: string }): Promise<string>;
  /** Why the embedder cannot embed (no embedder, a model that fails to load), or null. */
  checkEmbedder(): Promise<string | null>;
  replace(input: ReplaceMemoryInput, by: WrittenBy): Promise<string>;
  /** Adds a fact to MEMORY.md. */
  remember(input: MemoryTextInput, by: WrittenBy): Promise<string>;
  /** Adds a note to today's log. */
  log(input: MemoryTextInput, by: WrittenBy): Promise<string>;
  /** Replaces one section of MEMORY.md, or adds it. */
  writeSection(input: MemorySectionInput, by: WrittenBy): Promise<string>;
  /**
   * The owner vouches for a memory file after reading it ("I trust this
   * page"): its untrusted labels are taken out, as the owner's version, so
   * its text is trusted from then on. Only the owner may: `invalid` for
   * anyone else; `invalid`/`not_found` naming `path` as for a read;
   * `conflict` naming `read` when the file is not the text they read.
   */
  trust(input: TrustMemoryInput, by: WrittenBy): Promise<TrustResult>;
  /** Replaces an identity file (SOUL.md, USER.md, HEARTBEAT.md); returns its path in the home. */
  writeIdentity(input: WriteIdentityInput, by: WrittenBy): Promise<string>;
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
    ...sourcesOnFirstUse(memory, access),
    ...versionsOnFirstUse(memory),
    async search(input) {
      const { q, limit, mode } = checkInput(searchMemoryInput, input);
      if (mode === "vector" && memory.embedderId === null) {
        throw new ActionError(
          "invalid",
          "'mode': searching by meaning needs an embedder, and memory.embedder is none",
          { field: "mode" },
        );
      }
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
    content(input) {
      const { path } = checkInput(readMemoryInput, input);
      return fileCall(path, () => memory.files.read(path));
    },
    checkEmbedder: () => memory.checkEmbedder(),
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
    async trust(input, by) {
      const { path, read } = checkInput(trustMemoryInput, input);
      if (by.author !== "owner" || by.taint) {
        throw new ActionError("invalid", "Only the owner vouches for text, after reading it");
      }
      const result = await fileCall(path, () => memory.vouch(path, by, read));
      const version = result.changed
        ? memory.versions.latest(`memory/${result.path}`) ?? null
        : null;
      return { ...result, version };
    },
    async writeIdentity(input, by) {
      const { name, content } = checkInput(writeIdentityInput, input);
      return await memory.versions.files.replace(`identity/${name}`, content, by);
    },
    async reindex(onProgress) {
      const changed = await memory.reindex(onProgress);
      return { changed: changed.length, ...memory.index.stats() };
    },
    todayPath: () => memory.files.dailyPath(),
  };
}

/**
 * The source actions, their module (and the documents' front) loaded by the
 * first source added or refreshed and kept: no start and no chat turn needs them.
 */
function sourcesOnFirstUse(memory: Memory, access: SourceAccess): SourceActions {
  let loading: Promise<SourceActions> | undefined;
  const actions = () =>
    loading ??= import("./memory_sources.ts").then(({ createSourceActions }) =>
      createSourceActions(memory, access)
    );
  return {
    addSource: async (input, by, signal) => (await actions()).addSource(input, by, signal),
    refreshSource: async (input, by, signal) => (await actions()).refreshSource(input, by, signal),
  };
}

/**
 * The version actions, their module loaded by the first version call and
 * kept: no start and no chat turn needs them (their schemas cost ~3 ms).
 */
function versionsOnFirstUse(memory: Memory): VersionActions {
  let loading: Promise<VersionActions> | undefined;
  const actions = () =>
    loading ??= import("./memory_versions.ts").then(({ createVersionActions }) =>
      createVersionActions(memory)
    );
  return {
    versions: async (input) => (await actions()).versions(input),
    version: async (input) => (await actions()).version(input),
    diff: async (input) => (await actions()).diff(input),
    revert: async (input, by) => (await actions()).revert(input, by),
    undo: async (input, by) => (await actions()).undo(input, by),
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
  if (error instanceof ChangedSinceReadError) {
    return new ActionError("conflict", error.message, { field: "read", cause: error });
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
