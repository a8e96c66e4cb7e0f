/**
 * Reading a backup's archive into a directory: every entry checked as it
 * comes (a path inside the home, a file or a directory, nothing twice),
 * each file hashed on its way to the disk, then the whole held against the
 * manifest. A cut, corrupt or foreign archive is a BackupError (`damaged`)
 * that says what is wrong with which entry. Knows the archive's layout; nothing
 * of what the files mean.
 */

import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { createTarDecoder } from "modern-tar";
import { BackupError } from "./errors.ts";
import {
  HOME_PREFIX,
  isSafePath,
  keptMode,
  type Manifest,
  MANIFEST_NAME,
  parseManifest,
} from "./manifest.ts";

/** What an archive held, as read. */
export interface Extracted {
  manifest: Manifest;
  /** Each file written, by its path in the home: its size and SHA-256 as read. */
  files: Map<string, { bytes: number; sha256: string }>;
}

/**
 * Writes the home in the archive `file` into the directory `into` (which
 * must exist) and checks it against the manifest.
 *
 * @example
 * ```ts
 * const { manifest } = await extractArchive("hob-backup-2026-11-29T13-40-05Z.tar.gz", staging);
 * ```
 */
export async function extractArchive(file: string, into: string): Promise<Extracted> {
  const source = await openArchive(file);
  const files = new Map<string, { bytes: number; sha256: string }>();
  let manifest: Manifest | undefined;
  let at = "its first entry";
  try {
    const entries = source.readable.pipeThrough(new DecompressionStream("gzip"))
      .pipeThrough(createTarDecoder({ strict: true }));
    for await (const entry of entries) {
      const { name, type = "file" } = entry.header;
      at = name;
      if (name === MANIFEST_NAME && type === "file" && !manifest) {
        manifest = parseManifest(await new Response(entry.body).text(), file);
        continue;
      }
      const path = homePath(name, file);
      if (type === "directory") {
        await entry.body.cancel();
        await Deno.mkdir(join(into, path), { recursive: true, mode: 0o700 });
      } else if (type === "file" && !files.has(path)) {
        files.set(path, await writeEntry(entry.body, join(into, path), entry.header.mode));
      } else {
        throw new BackupError(
          "damaged",
          `${file} holds ${
            files.has(path) ? "a second" : `a ${type} at`
          } ${name}, which a hob backup never has`,
          file,
        );
      }
    }
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(
      "damaged",
      `${file} is damaged or cut short (read up to ${at}): ${(error as Error).message}`,
      file,
      { cause: error },
    );
  }
  if (!manifest) {
    throw new BackupError(
      "damaged",
      `${file} ends before its manifest: it is cut short, or not a hob backup`,
      file,
    );
  }
  checkAgainst(manifest, files, file);
  return { manifest, files };
}

/** The archive, open, once its first bytes say it is gzip. */
async function openArchive(file: string): Promise<Deno.FsFile> {
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(file, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new BackupError("not_found", `${file} does not exist`, file);
    }
    throw error;
  }
  const magic = new Uint8Array(2);
  const read = await handle.read(magic);
  if (read !== 2 || magic[0] !== 0x1f || magic[1] !== 0x8b) {
    handle.close();
    throw new BackupError(
      "damaged",
      `${file} is not a hob backup: it is not gzip-compressed (a hob backup is a .tar.gz)`,
      file,
    );
  }
  await handle.seek(0, Deno.SeekMode.Start);
  return handle;
}

/** The home's path an entry names, or a BackupError when it names anything else. */
function homePath(name: string, file: string): string {
  const path = name.startsWith(HOME_PREFIX)
    ? name.slice(HOME_PREFIX.length).replace(/\/$/, "")
    : "";
  if (!isSafePath(path)) {
    throw new BackupError(
      "damaged",
      `${file} holds ${JSON.stringify(name)}, which is not a path inside a home — not a hob backup`,
      file,
    );
  }
  return path;
}

/** Writes an entry's body to `target` (a new file), hashing it on the way. */
async function writeEntry(
  body: ReadableStream<Uint8Array>,
  target: string,
  mode: number | undefined,
): Promise<{ bytes: number; sha256: string }> {
  await Deno.mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const out = await Deno.open(target, { write: true, createNew: true, mode: 0o600 });
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      bytes += chunk.length;
      for (let at = 0; at < chunk.length;) at += await out.write(chunk.subarray(at));
    }
  } finally {
    out.close();
  }
  // The file's own permission bits, as keptMode let them into the archive.
  await Deno.chmod(target, keptMode(mode ?? null));
  return { bytes, sha256: hash.digest("hex") };
}

/** Every file the manifest lists, as it lists it, and no other; else a BackupError naming the first that is not. */
function checkAgainst(
  manifest: Manifest,
  files: Map<string, { bytes: number; sha256: string }>,
  file: string,
): void {
  const listed = new Set<string>();
  for (const expected of manifest.files) {
    listed.add(expected.path);
    const found = files.get(expected.path);
    const problem = !found
      ? "is missing: the archive is cut short"
      : found.bytes !== expected.bytes
      ? `has ${found.bytes} bytes, the manifest says ${expected.bytes}: the archive is damaged`
      : found.sha256 !== expected.sha256
      ? "differs from the manifest's SHA-256: the archive is damaged"
      : undefined;
    if (problem) throw new BackupError("damaged", `${file}: ${expected.path} ${problem}`, file);
  }
  for (const path of files.keys()) {
    if (!listed.has(path)) {
      throw new BackupError("damaged", `${file}: ${path} is not in the manifest`, file);
    }
  }
}
