/**
 * A skill in an archive — a `.zip` (a `.skill` is one) or a `.tar.gz` —
 * read in memory, never unpacked to disk: every name checked (no absolute
 * path, no `..`), hidden entries skipped (`.git`, `__MACOSX`, `.DS_Store`),
 * and the skill's own entries read within the folder's limits (folder.ts),
 * counted as they are decompressed, so an entry that unpacks to gigabytes
 * stops at the limit. A link or a device inside the skill is refused.
 *
 * The skill is the outermost folder holding a SKILL.md: the archive's root,
 * its one folder (`pdf/SKILL.md`, the common case) or deeper; an archive
 * holding several is refused, naming them.
 */

import { createTarDecoder } from "modern-tar";
import { MAX_BYTES, MAX_FILES, type SkillFile } from "./folder.ts";
import { SKILL_FILE } from "./shelf.ts";
import { SkillSourceError } from "./source_error.ts";

/** The most a tar.gz may unpack to in all, the parts outside the skill included. */
export const MAX_UNPACKED_BYTES = 8 * MAX_BYTES;

/** How an archive is read. */
export interface ArchiveOptions {
  /** What errors name: the path or URL the user gave. */
  source: string;
  /** The skill's folder name when SKILL.md is at the archive's root (`pdf` for `pdf.skill`). */
  rootName: string;
  /** The folder inside the archive to look in (a GitHub URL's path); the whole archive when unset. */
  inside?: string;
  /** The archive's one top folder is dropped first (a GitHub archive's `REPO-REF/`). */
  dropTop?: boolean;
}

/** A skill read from an archive: the name of its folder and its files. */
export interface ArchivedSkill {
  folder: string;
  files: SkillFile[];
}

/** One entry as an archive lists it, its path cleaned; `read` gives its bytes, at most `max`. */
interface Entry {
  path: string;
  kind: "file" | "directory" | "link" | "other";
  read(max: number): Promise<Uint8Array>;
}

/** Walks the archive's entries in order; `visit` reads the ones it wants. */
type Walk = (visit: (entry: Entry) => Promise<void>) => Promise<void>;

/** Whether `bytes` start like a zip or a gzip file, the two kinds of archive read. */
export function archiveKind(bytes: Uint8Array): "zip" | "tar.gz" | null {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5)) return "zip";
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return "tar.gz";
  return null;
}

/**
 * Reads the one skill in the archive `bytes`.
 *
 * @example
 * ```ts
 * const { folder, files } = await readSkillArchive(await Deno.readFile("pdf.skill"), {
 *   source: "pdf.skill", rootName: "pdf",
 * });
 * ```
 */
export async function readSkillArchive(
  bytes: Uint8Array,
  options: ArchiveOptions,
): Promise<ArchivedSkill> {
  const kind = archiveKind(bytes);
  if (!kind) {
    throw new SkillSourceError(`${options.source} is not a zip or tar.gz archive`);
  }
  const walk = kind === "zip" ? await zipWalk(bytes, options.source) : tarWalk(bytes, options);
  const paths: string[] = [];
  await named(options, walk, (entry) => {
    if (entry.kind === "file") paths.push(entry.path);
    return Promise.resolve();
  });
  const dir = skillDir(paths, options);
  const files = await readUnder(dir, walk, options);
  return { folder: dir === "" ? options.rootName : dir.split("/").pop()!, files };
}

/**
 * The folder of the skill among the archive's file `paths`: the outermost
 * folder holding a SKILL.md, under `inside` when set ("" is the root).
 *
 * @example
 * ```ts
 * skillDir(["pdf/SKILL.md", "pdf/scripts/a.py"], { source: "pdf.zip", rootName: "pdf" }); // "pdf"
 * ```
 */
export function skillDir(paths: string[], options: ArchiveOptions): string {
  const inside = (options.inside ?? "").replace(/^\/+|\/+$/g, "");
  const under = inside === "" ? "" : `${inside}/`;
  const holders = paths
    .filter((path) =>
      path.startsWith(under) && (path === SKILL_FILE || path.endsWith(`/${SKILL_FILE}`))
    )
    .map((path) => path.slice(0, -SKILL_FILE.length).replace(/\/$/, ""))
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const outermost: string[] = [];
  for (const dir of holders) {
    if (!outermost.some((outer) => outer === "" || dir.startsWith(`${outer}/`))) {
      outermost.push(dir);
    }
  }
  const where = inside === "" ? options.source : `${options.source} (in ${inside})`;
  if (outermost.length === 1) return outermost[0];
  if (outermost.length === 0) {
    const folder = inside !== "" && !paths.some((path) => path.startsWith(under));
    throw new SkillSourceError(
      folder ? `${options.source} has no folder ${inside}` : `${where} holds no ${SKILL_FILE}`,
    );
  }
  throw new SkillSourceError(
    `${where} holds ${outermost.length} skills (${outermost.sort().join(", ")}); add one at a time`,
  );
}

/** Every entry's name checked and cleaned (hidden ones and other folders' dropped) before `visit`. */
async function named(
  options: ArchiveOptions,
  walk: Walk,
  visit: (entry: Entry) => Promise<void>,
): Promise<void> {
  let top: string | undefined;
  await walk(async (entry) => {
    let path = cleanPath(entry.path, options.source);
    if (path === null) return;
    if (options.dropTop) {
      const [first, ...rest] = path.split("/");
      top ??= first;
      if (first !== top) {
        throw new SkillSourceError(`${options.source} holds more than one top folder`);
      }
      path = rest.join("/");
      if (path === "") return;
    }
    await visit({ ...entry, path });
  });
}

/** The files under `dir` ("" for all), read within the limits; a link or device there refused. */
async function readUnder(dir: string, walk: Walk, options: ArchiveOptions): Promise<SkillFile[]> {
  const prefix = dir === "" ? "" : `${dir}/`;
  const files: SkillFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  await named(options, walk, async (entry) => {
    if (!entry.path.startsWith(prefix) || entry.kind === "directory") return;
    const path = entry.path.slice(prefix.length);
    if (entry.kind !== "file") {
      throw new SkillSourceError(
        `${options.source}: '${entry.path}' is a ${
          entry.kind === "link" ? "link" : "device or special file"
        }, which a skill may not hold`,
      );
    }
    if (seen.has(path)) {
      throw new SkillSourceError(`${options.source} holds '${entry.path}' twice`);
    }
    if (files.length === MAX_FILES) {
      throw new SkillSourceError(`${options.source} holds more than ${MAX_FILES} files`);
    }
    const bytes = await entry.read(MAX_BYTES - total);
    total += bytes.length;
    seen.add(path);
    files.push({ path, bytes });
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * An entry's name as a relative path with `/`, or null for one that is
 * skipped (hidden, `__MACOSX`); a name that could land outside is refused.
 */
function cleanPath(name: string, source: string): string | null {
  const path = name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (path === "" || path === ".") return null;
  const parts = path.split("/");
  if (
    name.startsWith("/") || name.includes("\\") || /^[A-Za-z]:/.test(name) ||
    parts.some((part) => part === ".." || part === "") || name.includes("\0")
  ) {
    throw new SkillSourceError(`${source} holds '${name}', a path outside the archive`);
  }
  if (parts.some((part) => part.startsWith(".") || part === "__MACOSX")) return null;
  return path;
}

function tooBig(source: string): SkillSourceError {
  return new SkillSourceError(
    `${source} unpacks to more than the ${MAX_BYTES / 1024 / 1024} MB a skill may hold`,
  );
}

/** A zip's entries from its central directory, each decompressed only when read. */
async function zipWalk(bytes: Uint8Array, source: string): Promise<Walk> {
  // zip.js reads the directory (names, links, methods); the data is inflated here, within the limit.
  const { configure, Uint8ArrayReader, Uint8ArrayWriter, ZipReader } = await import(
    "@zip.js/zip.js"
  );
  configure({ useWebWorkers: false });
  let entries;
  try {
    // Names are checked here (cleanPath), so a refusal names the entry.
    entries = await new ZipReader(new Uint8ArrayReader(bytes), { filenameValidation: "tolerant" })
      .getEntries();
  } catch (error) {
    throw new SkillSourceError(`${source} is not a readable zip: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return async (visit) => {
    for (const entry of entries) {
      const kind = entry.directory ? "directory" : entry.symlink ? "link" : "file";
      await visit({
        path: entry.filename,
        kind,
        read: async (max) => {
          if (entry.directory) return new Uint8Array();
          if (entry.encrypted) {
            throw new SkillSourceError(`${source}: '${entry.filename}' is encrypted`);
          }
          if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
            throw new SkillSourceError(
              `${source}: '${entry.filename}' is compressed with method ${entry.compressionMethod}; hob reads stored and deflated entries`,
            );
          }
          // The sizes the directory declares are not trusted: the bytes are counted as they come.
          const raw = await entry.getData(new Uint8ArrayWriter(), { passThrough: true });
          if (entry.compressionMethod === 0) {
            if (raw.length > max) throw tooBig(source);
            return raw;
          }
          return await readAtMost(
            slices(raw).pipeThrough(new DecompressionStream("deflate-raw")),
            max,
            source,
            entry.filename,
          );
        },
      });
    }
  };
}

/** A tar.gz's entries as they stream by, the whole unpacked within {@linkcode MAX_UNPACKED_BYTES}. */
function tarWalk(bytes: Uint8Array, options: ArchiveOptions): Walk {
  const { source } = options;
  return async (visit) => {
    let unpacked = 0;
    const counted = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        unpacked += chunk.length;
        if (unpacked > MAX_UNPACKED_BYTES) {
          throw new SkillSourceError(
            `${source} unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MB`,
          );
        }
        controller.enqueue(chunk);
      },
    });
    const entries = slices(bytes)
      .pipeThrough(new DecompressionStream("gzip"))
      .pipeThrough(counted)
      .pipeThrough(createTarDecoder());
    try {
      for await (const entry of entries) {
        const { name, type = "file", size } = entry.header;
        let read = false;
        const kind = type === "file" || type === "directory"
          ? type
          : type === "link" || type === "symlink"
          ? "link"
          : /pax|gnu/.test(type)
          ? null
          : "other";
        if (kind !== null) {
          await visit({
            path: name,
            kind,
            read: async (max) => {
              if (size > max) throw tooBig(source);
              read = true;
              return new Uint8Array(await new Response(entry.body).arrayBuffer());
            },
          });
        }
        if (!read) await entry.body.cancel();
      }
    } catch (error) {
      if (error instanceof SkillSourceError) throw error;
      throw new SkillSourceError(
        `${source} is not a readable tar.gz: ${(error as Error).message}`,
        { cause: error },
      );
    }
  };
}

/** Compressed input is fed this much at a time: deflate unpacks 4 KiB to 4 MiB at most. */
const SLICE_BYTES = 4 * 1024;

/**
 * `bytes` as a stream of small slices, each given only when the decompressor
 * asks: a decompressor turns each chunk it is given into output at once, so
 * a whole bomb given in one chunk would be unpacked whole before it is counted.
 */
function slices(bytes: Uint8Array): ReadableStream<Uint8Array<ArrayBuffer>> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + SLICE_BYTES));
      at += SLICE_BYTES;
    },
  }, { highWaterMark: 0 });
}

/** The stream's bytes, refused once they pass `max` (the rest is never decompressed). */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
  source: string,
  name: string,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > max) {
        await reader.cancel();
        throw new SkillSourceError(
          `${source}: '${name}' unpacks past the ${
            MAX_BYTES / 1024 / 1024
          } MB a skill may hold; reading stopped there`,
        );
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof SkillSourceError) throw error;
    throw new SkillSourceError(`${source}: '${name}' is damaged: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
