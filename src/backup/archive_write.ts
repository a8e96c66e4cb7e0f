/**
 * Writing a backup's archive: a gzip-compressed tar (modern-tar's streaming
 * packer, the platform's CompressionStream), each file streamed in and hashed
 * (SHA-256) on its way, the manifest last. It is written beside its name and
 * renamed into place when whole, so a backup cut short never looks like one.
 * Knows the archive's layout (manifest.ts); nothing of which files a home has.
 */

import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { isProcessAlive } from "../store/owner.ts";
import { createTarPacker } from "modern-tar";
import { BackupError } from "./errors.ts";
import {
  HOME_PREFIX,
  keptMode,
  type Manifest,
  MANIFEST_NAME,
  type ManifestFile,
} from "./manifest.ts";

/** Bytes read from a file at a time. */
const CHUNK_BYTES = 256 * 1024;

/** Writes one entry's body, exactly as many bytes as its header says. */
type Entry = (
  name: string,
  size: number,
  write: (body: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>,
  mode?: number,
) => Promise<void>;

/** An archive being written. */
export interface ArchiveWriter {
  /** Adds a directory of the home (`memory`). */
  addDir(path: string): Promise<void>;
  /**
   * Adds the file at `source` as the home's `path`, as long as it was when
   * opened; undefined when it is gone. A file that shrank while it was read
   * goes in padded with zeros, and `changed` says so.
   */
  addFile(path: string, source: string): Promise<(ManifestFile & { changed: boolean }) | undefined>;
  /** Adds `bytes` as the home's `path` (hob.yaml without its secrets). */
  addBytes(path: string, bytes: Uint8Array): Promise<ManifestFile>;
  /** Writes the manifest, closes the archive and puts it in place; returns its size in bytes. */
  finish(manifest: Manifest): Promise<number>;
  /** Stops and removes what was written. */
  abort(): Promise<void>;
}

/**
 * Starts the archive `file`, which must not exist (a BackupError `exists`).
 *
 * @example
 * ```ts
 * const archive = await createArchive("/backups/hob-backup-2026-11-29T13-40-05Z.tar.gz");
 * await archive.addFile("memory/MEMORY.md", `${home}/memory/MEMORY.md`);
 * await archive.finish(manifest);
 * ```
 */
export async function createArchive(file: string): Promise<ArchiveWriter> {
  if (await exists(file)) {
    throw new BackupError("exists", `${file} exists — choose another name, or delete it`, file);
  }
  await sweepPartials(file);
  const partial = `${file}.partial-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const out = await Deno.open(partial, { write: true, createNew: true, mode: 0o600 }).catch(
    (error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const folder = dirname(file);
      throw new BackupError("not_found", `the folder ${folder} does not exist`, folder);
    },
  );
  const { readable, controller } = createTarPacker();
  const written = readable.pipeThrough(new CompressionStream("gzip")).pipeTo(out.writable);
  // Seen when finishing; kept from being an unhandled rejection meanwhile.
  written.catch(() => {});
  const entry: Entry = async (name, size, write, mode = 0o600) => {
    const body = controller.add({ name, size, type: "file", mode }).getWriter();
    await write(body);
    await body.close();
  };
  return {
    async addDir(path) {
      await controller.add({
        name: `${HOME_PREFIX}${path}/`,
        size: 0,
        type: "directory",
        mode: 0o700,
      })
        .close();
    },
    addFile: (path, source) => addFile(entry, path, source),
    async addBytes(path, bytes) {
      await entry(`${HOME_PREFIX}${path}`, bytes.length, (body) => body.write(bytes));
      return {
        path,
        bytes: bytes.length,
        sha256: hex(createHash("sha256").update(bytes).digest()),
      };
    },
    async finish(manifest) {
      const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
      await entry(MANIFEST_NAME, bytes.length, (body) => body.write(bytes));
      controller.finalize();
      await written;
      await Deno.rename(partial, file);
      return (await Deno.stat(file)).size;
    },
    async abort() {
      controller.error(new Error("the backup stopped"));
      await written.catch(() => {});
      await Deno.remove(partial).catch(() => {});
    },
  };
}

/** Streams one file into the archive, hashing it; undefined when it is gone. */
async function addFile(
  entry: Entry,
  path: string,
  source: string,
): Promise<(ManifestFile & { changed: boolean }) | undefined> {
  let handle: Deno.FsFile;
  try {
    handle = await Deno.open(source, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  try {
    // The size of the file as opened: memory files are replaced whole (renamed over), never
    // changed in place, so the open handle reads one version to its end.
    const { size, mode } = await handle.stat();
    const hash = createHash("sha256");
    let changed = false;
    await entry(`${HOME_PREFIX}${path}`, size, async (body) => {
      const buffer = new Uint8Array(CHUNK_BYTES);
      for (let done = 0; done < size;) {
        const read = await handle.read(buffer.subarray(0, Math.min(CHUNK_BYTES, size - done)));
        // Shorter now than when opened (changed in place): the rest is zeros, and said to be.
        const chunk = read === null ? new Uint8Array(size - done) : buffer.slice(0, read);
        changed ||= read === null;
        hash.update(chunk);
        await body.write(chunk);
        done += chunk.length;
      }
    }, keptMode(mode));
    return { path, bytes: size, sha256: hex(hash.digest()), changed };
  } finally {
    handle.close();
  }
}

/**
 * Removes what backups killed on the way (`kill -9`, a power cut) left beside
 * `file`: `.partial-PID-…` files whose process is gone. A partial file of a
 * backup still running, in this process or another, is left alone.
 */
async function sweepPartials(file: string): Promise<void> {
  const folder = dirname(file);
  try {
    for await (const entry of Deno.readDir(folder)) {
      const pid = /\.partial-(\d+)-[0-9a-f]{8}$/.exec(entry.name)?.[1];
      if (!entry.isFile || !pid || isProcessAlive(Number(pid))) continue;
      await Deno.remove(join(folder, entry.name)).catch(() => {});
    }
  } catch (error) {
    // A folder that does not exist is said below, when the archive is opened.
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
