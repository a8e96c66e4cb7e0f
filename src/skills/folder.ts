/**
 * A skill's folder on disk: its files walked in a fixed order within limits
 * (no links, nothing hidden, a bounded count and size), their content hashed
 * into one digest — the pin an owner accepts — and a folder copied whole. A
 * skill is read from here and only here, so what is hashed is what the model
 * and the tool processes read.
 */

import { join, relative, sep } from "node:path";
import { createHash } from "node:crypto";

/** At most this many files, and bytes in all, in one skill. */
export const MAX_FILES = 500;
export const MAX_BYTES = 20 * 1024 * 1024;

/** One file of a skill: its path inside the folder (with `/`) and its bytes. */
export interface SkillFile {
  path: string;
  bytes: Uint8Array;
}

/** A skill folder read: its files in path order and the digest of them all. */
export interface SkillFolder {
  files: SkillFile[];
  /** SHA-256, hex, of every file's path and content, in path order. */
  hash: string;
}

/** A folder that is not a skill hob will read (too big, a link, unreadable). */
export class SkillFolderError extends Error {
  override name = "SkillFolderError";
}

/**
 * Reads every file under `dir`; a symbolic link is refused, as it could point
 * anywhere. Hidden names (`.git`, `.DS_Store`) are skipped when a skill is
 * read to be installed, and read with `hidden` when it is checked in the
 * home, where only a later change can have put one.
 *
 * @example
 * ```ts
 * const { files, hash } = await readSkillFolder("/home/me/.hob/skills/pdf");
 * files.map((file) => file.path); // ["SKILL.md", "scripts/fill.ts"]
 * ```
 */
export async function readSkillFolder(
  dir: string,
  options: { hidden?: boolean } = {},
): Promise<SkillFolder> {
  const files: SkillFile[] = [];
  let total = 0;
  for (const path of await walk(dir, dir, options.hidden === true)) {
    const bytes = await Deno.readFile(join(dir, path));
    total += bytes.length;
    if (total > MAX_BYTES) {
      throw new SkillFolderError(`it holds more than ${MAX_BYTES / 1024 / 1024} MB`);
    }
    files.push({ path, bytes });
  }
  return { files, hash: folderHash(files) };
}

/**
 * The digest of a skill's files: each path and its content's SHA-256, in path order.
 *
 * @example
 * ```ts
 * folderHash([{ path: "SKILL.md", bytes: new TextEncoder().encode("---\n…") }]); // "3f2a…"
 * ```
 */
export function folderHash(files: SkillFile[]): string {
  const all = createHash("sha256");
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const one = createHash("sha256").update(file.bytes).digest("hex");
    all.update(`${file.path}\0${one}\n`);
  }
  return all.digest("hex");
}

/** Writes `files` into `dir`, which must not exist yet; on any failure nothing is left. */
export async function writeSkillFolder(dir: string, files: SkillFile[]): Promise<void> {
  await Deno.mkdir(dir);
  try {
    for (const file of files) {
      const target = join(dir, ...file.path.split("/"));
      await Deno.mkdir(join(target, ".."), { recursive: true });
      await Deno.writeFile(target, file.bytes, { createNew: true });
    }
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** The relative paths of the regular files under `dir`, sorted; hidden entries skipped. */
async function walk(root: string, dir: string, hidden: boolean): Promise<string[]> {
  const paths: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for await (const entry of Deno.readDir(current)) {
      if (!hidden && entry.name.startsWith(".")) continue;
      const full = join(current, entry.name);
      const path = relative(root, full).split(sep).join("/");
      if (entry.isSymlink) {
        throw new SkillFolderError(`'${path}' is a symbolic link, which a skill may not hold`);
      }
      if (entry.isDirectory) pending.push(full);
      else if (entry.isFile) paths.push(path);
      if (paths.length > MAX_FILES) {
        throw new SkillFolderError(`it holds more than ${MAX_FILES} files`);
      }
    }
  }
  return paths.sort();
}
