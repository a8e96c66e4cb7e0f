/**
 * Memory as the rest of hob uses it: the Markdown files (the truth), the
 * search index over them (derived, kept in step by writes and by a watcher for
 * edits made outside hob), and the memory section of each turn's prompt.
 */

import type { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import type { HobConfig } from "../config/schema.ts";
import type { PromptSources } from "../core/ports.ts";
import { excerptLines, untrustedSource } from "../core/untrusted.ts";
import { resolveInRoots } from "../sandbox/paths.ts";
import { memoryContext } from "./context.ts";
import type { FileVersion, WrittenBy } from "../store/versions.ts";
import type { Embedder } from "./embedder.ts";
import type { MemoryFiles } from "./files.ts";
import { FileVersions, loadDiff } from "./versions.ts";
import type { DocumentFormat } from "./documents.ts";
import type { SourceMeta } from "./sources.ts";
import { createOpenAiEmbedder } from "./openai_embeddings.ts";
import {
  defaultFusion,
  type IndexProgress,
  type MemoryHit,
  MemoryIndex,
  type SearchOptions,
} from "./search_index.ts";
import { createTransformersEmbedder } from "./transformers.ts";
import { createUseLiteEmbedder } from "./use_lite.ts";

/** Lines memory_get returns by default, and at most. */
const DEFAULT_GET_LINES = 60;
const MAX_GET_LINES = 500;
/** Characters per token, for turning the token budget into text. */
const CHARS_PER_TOKEN = 4;

/** Lines of a memory file. */
export interface MemoryExcerpt {
  path: string;
  from: number;
  to: number;
  total_lines: number;
  text: string;
}

/** A document or page to add to memory, as read. */
export interface SourceDocument {
  /** The URL, or the absolute path, it was read from. */
  source: string;
  bytes: Uint8Array;
  /** A file name (its extension helps name the format). */
  name: string;
  /** The declared media type (a `Content-Type` header). */
  mediaType?: string;
  /** Where relative links in HTML point from (the URL after redirects). */
  url?: string;
}

/** What adding a source did. */
export interface AddedSource {
  /** Its file, relative to the memory directory: `sources/example-com-manual.md`. */
  path: string;
  source: string;
  /** The document's own title (its words, not hob's). */
  title: string;
  format: DocumentFormat;
  /** False when what was read is what the file already holds. */
  changed: boolean;
  /** True when the Markdown was cut at the size limit. */
  truncated: boolean;
  /** The file's version after the add (the same as before when nothing changed). */
  version: FileVersion | null;
}

/** The sources' file shape and the documents' converter, once a source asked for them. */
let sourceModules:
  | Promise<[typeof import("./sources.ts"), typeof import("./documents.ts")]>
  | undefined;

/** Loads the source modules once: only adding or reading a source needs them, not a start or a turn. */
function loadSources(): NonNullable<typeof sourceModules> {
  return sourceModules ??= Promise.all([import("./sources.ts"), import("./documents.ts")]);
}

/**
 * Creates the embedder hob.yaml asks for; null for keyword search alone.
 *
 * @example
 * ```ts
 * const embedder = createEmbedder(config); // USE-lite unless memory.embedder says otherwise
 * ```
 */
export function createEmbedder(config: HobConfig): Embedder | null {
  const choice = config.memory.embedder;
  if (choice === "none") return null;
  if (choice === "use-lite") {
    return createUseLiteEmbedder({ threads: config.memory.index_threads });
  }
  if (choice.startsWith("transformers:")) {
    return createTransformersEmbedder(choice.slice("transformers:".length));
  }
  const slash = choice.indexOf("/");
  return createOpenAiEmbedder(config.providers[choice.slice(0, slash)], choice.slice(slash + 1));
}

/**
 * A home's memory.
 *
 * @example
 * ```ts
 * const memory = new Memory({ home, db, config, now: () => new Date() });
 * await memory.remember("Ada's sister is called Grace.", { author: "owner", via: "cli" });
 * const hits = await memory.search("who is Ada's sibling?");
 * ```
 */
export class Memory {
  readonly files: MemoryFiles;
  /** Every write to memory, identity, skills and tools, as versions. */
  readonly versions: FileVersions;
  readonly index: MemoryIndex;
  /** Settles when the index has caught up with the files at start. */
  readonly ready: Promise<void>;
  #scanned: Promise<void> | undefined;
  readonly #config: HobConfig;
  readonly #embedder: Embedder | null;
  readonly #home: string;
  readonly #now: () => Date;
  #watcher: Deno.FsWatcher | undefined;

  constructor(
    options: {
      home: string;
      db: DatabaseSync;
      config: HobConfig;
      now: () => Date;
      embedder?: Embedder | null;
      /** The versions of the home's files; kept in `db` when not given. */
      versions?: FileVersions;
    },
  ) {
    this.#home = options.home;
    this.#config = options.config;
    this.#now = options.now;
    this.#embedder = options.embedder !== undefined
      ? options.embedder
      : createEmbedder(options.config);
    const fusion = defaultFusion(this.#embedder?.id ?? null);
    if (options.config.memory.vector_weight !== undefined) {
      fusion.vectorWeight = options.config.memory.vector_weight;
    }
    this.versions = options.versions ??
      new FileVersions({ home: options.home, db: options.db, now: options.now });
    this.files = this.versions.memory;
    this.index = new MemoryIndex(options.db, this.files.dir, this.#embedder, fusion);
    // Catch up with edits made while hob was not running; vectors follow deferred, while nobody waits.
    this.ready = this.index.sync().then(() => {}, (error) => {
      console.error(`hob: indexing memory failed: ${(error as Error).message}`);
    });
  }

  /**
   * Settles when every versioned file has a version of what it holds: the
   * scan for files no version has yet starts on first use — a list of versions, or
   * `watch` in `hob serve` — so a command that reads no versions pays nothing
   * for it (a write records what it replaces anyway).
   */
  get scanned(): Promise<void> {
    return this.#scanned ??= this.ready.then(() => this.versions.scan()).then(() => {}, (error) => {
      // Versions resume with the next write; the files themselves are untouched.
      console.error(`hob: recording file versions failed: ${(error as Error).message}`);
    });
  }

  /** The embedder in use, or null for keyword search alone. */
  get embedderId(): string | null {
    return this.#embedder?.id ?? null;
  }

  /** Whether the embedder works: null when it does, else why not (for `hob doctor`). */
  async checkEmbedder(): Promise<string | null> {
    if (!this.#embedder) return "memory.embedder is none";
    try {
      await this.#embedder.embed(["hob doctor"], "query");
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  async search(query: string, options: SearchOptions = {}): Promise<MemoryHit[]> {
    await this.ready;
    return await this.index.search(query, options);
  }

  /** Lines `from` (1-based) onwards of a memory file, inside the memory directory only. */
  async get(path: string, from = 1, lines = DEFAULT_GET_LINES): Promise<MemoryExcerpt> {
    const file = await resolveInRoots(path.replace(/^memory\//, ""), [this.files.dir]);
    const content = await Deno.readTextFile(file);
    const all = content.split("\n");
    const count = Math.min(Math.max(1, lines), MAX_GET_LINES);
    const start = Math.max(1, from);
    const to = Math.min(all.length, start - 1 + count);
    return {
      path: file.slice(this.files.dir.length + 1),
      from: start,
      to,
      total_lines: all.length,
      // Lines cut out of an untrusted label keep it (text a tainted turn wrote).
      text: excerptLines(content, start, to),
    };
  }

  async remember(text: string, by: WrittenBy): Promise<string> {
    return await this.#indexed(await this.files.remember(text, by));
  }

  async logNote(text: string, by: WrittenBy, heading?: string): Promise<string> {
    return await this.#indexed(await this.files.logNote(text, by, { heading }));
  }

  async writeSection(section: string, content: string, by: WrittenBy): Promise<string> {
    return await this.#indexed(await this.files.writeSection(section, content, by));
  }

  /** Replaces a whole file (the page's editor). */
  async replace(path: string, content: string, by: WrittenBy): Promise<string> {
    const file = await resolveInRoots(path, [this.files.dir], { allowMissing: true });
    if (!file.endsWith(".md")) throw new Error("Only Markdown (.md) files live in memory");
    return await this.#indexed(
      await this.files.replace(file.slice(this.files.dir.length + 1), content, by),
    );
  }

  /**
   * Takes the untrusted labels out of a memory file, as the owner's version
   * of it: from then on its text is trusted (the memory context shows it, and
   * a turn that reads it is not tainted). `changed` is false when the file
   * held no label. Given `read` (the SHA-256 of the text the owner read),
   * refuses a file that changed since (ChangedSinceReadError). Throws a
   * PathError outside memory, Deno.errors.NotFound for no such file.
   */
  async vouch(
    path: string,
    by: WrittenBy,
    read?: string,
  ): Promise<{ path: string; changed: boolean }> {
    const file = await resolveInRoots(path.replace(/^memory\//, ""), [this.files.dir]);
    if (!file.endsWith(".md")) throw new Error("Only Markdown (.md) files live in memory");
    const relative = file.slice(this.files.dir.length + 1);
    if (untrustedSource(await Deno.readTextFile(file)) === null) {
      return { path: relative, changed: false };
    }
    return { path: await this.#indexed(await this.files.vouch(relative, by, read)), changed: true };
  }

  /**
   * Converts a document to Markdown and saves it under memory/sources/, in
   * the file it was saved to before (a new version when it changed), or a
   * new one named after it. The body stays labelled as untrusted.
   */
  async addSource(
    document: SourceDocument,
    by: WrittenBy,
    signal?: AbortSignal,
  ): Promise<AddedSource> {
    const [{ bytesHash, sourceFile }, { convertDocument }] = await loadSources();
    const hash = bytesHash(document.bytes);
    const existing = await this.#sourceFileOf(document.source);
    const latest = () => this.versions.latest(`memory/${path}`) ?? null;
    const converted = await convertDocument(document, { signal });
    const path = existing?.path ?? await this.#freeSourcePath(document.source);
    const base = {
      path,
      source: document.source,
      title: converted.title,
      format: converted.format,
    };
    if (existing?.meta.content_hash === hash) {
      return { ...base, changed: false, truncated: converted.truncated, version: latest() };
    }
    const meta: SourceMeta = {
      source: document.source,
      format: converted.format,
      fetched_at: this.#now().toISOString(),
      content_hash: hash,
    };
    await this.replace(path, await sourceFile(meta, converted.title, converted.markdown), by);
    return { ...base, changed: true, truncated: converted.truncated, version: latest() };
  }

  /** The front matter of a source file (relative to memory/), or null when it is not one. */
  async sourceMeta(path: string): Promise<SourceMeta | null> {
    const file = await resolveInRoots(path, [this.files.dir]).catch(() => null);
    if (!file) return null;
    const [{ readMeta }] = await loadSources();
    return await readMeta(await readOrEmpty(file));
  }

  /** The source file that holds `source`, if one does. */
  async #sourceFileOf(source: string): Promise<{ path: string; meta: SourceMeta } | null> {
    const [{ readMeta, SOURCES_DIR }] = await loadSources();
    const dir = join(this.files.dir, SOURCES_DIR);
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    for (const entry of entries) {
      if (!entry.isFile || !entry.name.endsWith(".md")) continue;
      const meta = await readMeta(await readOrEmpty(join(dir, entry.name)));
      if (meta?.source === source) return { path: `${SOURCES_DIR}/${entry.name}`, meta };
    }
    return null;
  }

  /** A new file for `source`: its name, or its name with -2, -3… when that is taken. */
  async #freeSourcePath(source: string): Promise<string> {
    const [{ sourceName, SOURCES_DIR }] = await loadSources();
    const name = sourceName(source).replace(/\.md$/, "");
    for (let n = 1;; n++) {
      const path = `${SOURCES_DIR}/${n === 1 ? name : `${name}-${n}`}.md`;
      if (!(await this.files.read(path))) return path;
    }
  }

  /**
   * Puts a file back as it was at `version` — itself a new version, so
   * nothing is lost — and the index follows. A version that deleted the file
   * deletes it again. Returns the new version (null: the file already held it).
   */
  revert(version: FileVersion, by: WrittenBy): Promise<FileVersion | null> {
    const content = this.versions.content(version);
    return this.#rewrite(version, by, () => content);
  }

  /**
   * Takes back what the write `version` changed, keeping later writes to the
   * file — a new version too. Throws `UndoConflict` when later writes changed
   * the same lines. Returns the new version (null: nothing changed).
   */
  async undo(version: FileVersion, by: WrittenBy): Promise<FileVersion | null> {
    await loadDiff();
    return await this.#rewrite(version, by, (current) => this.versions.undone(version, current));
  }

  /** Rewrites `version`'s file under its lock, as `by` restoring from `version`; the index follows. */
  async #rewrite(
    version: FileVersion,
    by: WrittenBy,
    change: (current: string | null) => string | null,
  ): Promise<FileVersion | null> {
    const inMemory = version.path.startsWith("memory/");
    const writer = inMemory ? this.files : this.versions.files;
    const path = inMemory ? version.path.slice("memory/".length) : version.path;
    const before = this.versions.latest(version.path)?.id;
    await writer.update(path, { ...by, reverts: version.id }, change);
    if (inMemory) await this.#indexed(path);
    const after = this.versions.latest(version.path);
    return after && after.id !== before ? after : null;
  }

  reindex(onProgress?: (progress: IndexProgress) => void): Promise<string[]> {
    return this.index.reindex(onProgress);
  }

  /**
   * Records and indexes the files as they change on disk (an editor, a sync
   * tool), until closed: memory's files are indexed, and every versioned file
   * (memory, identity, skills, tools) gets a version as the owner's edit.
   */
  watch(): void {
    if (this.#watcher) return;
    this.scanned.catch(() => {/* reported */});
    this.#watcher = this.versions.watch((path) => {
      this.index.indexFile(path).catch((error) =>
        console.error(`hob: indexing ${path}: ${error.message}`)
      );
    }) ?? undefined;
  }

  /**
   * The memory section of a turn's system prompt, within the token budget:
   * trusted text only (see context.ts).
   */
  async context(query: string): Promise<string> {
    if (this.#config.memory.context_tokens === 0) return "";
    await this.ready;
    const now = this.#now();
    return await memoryContext(
      {
        read: (path) => this.files.read(path),
        today: this.files.dailyPath(now),
        yesterday: this.files.dailyPath(new Date(now.getTime() - 86_400_000)),
        // Never wait for the embedder here: a turn must not stall on a model loading.
        search: (query, limit) => this.index.search(query, { limit, waitForEmbedder: false }),
        passages: (hits, query, budget) => this.index.passages(hits, query, budget),
      },
      query,
      {
        chars: this.#config.memory.context_tokens * CHARS_PER_TOKEN,
        hits: this.#config.memory.context_hits,
      },
    );
  }

  /** Stops watching and embedding; vectors still missing are made at the next start. */
  async close(): Promise<void> {
    this.#watcher?.close();
    const stopped = this.index.stop();
    this.#embedder?.close();
    await stopped;
    await this.ready;
    await this.#scanned;
  }

  async #indexed(path: string): Promise<string> {
    await this.ready;
    await this.index.indexFile(path);
    return path;
  }

  /** For tests and `hob memory reindex`: wait for all vectors. */
  settle(): Promise<void> {
    return this.index.settle();
  }

  /** The identity files and memory context, as the agent's prompt port. */
  promptSources(): PromptSources {
    const home = this.#home;
    return {
      identity: async () => {
        const [soul, user] = await Promise.all([
          readOrEmpty(join(home, "identity", "SOUL.md")),
          readOrEmpty(join(home, "identity", "USER.md")),
        ]);
        return { soul, user };
      },
      memoryContext: (query) => this.context(query),
    };
  }
}

/** A text file's content, or empty when it does not exist. */
export async function readOrEmpty(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}
