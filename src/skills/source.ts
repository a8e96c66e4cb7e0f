/**
 * Where a skill is installed from, read into memory before anything is
 * written: a folder holding a SKILL.md (a collection's folder holding one
 * skill folder is taken when it holds exactly one). The files are read within
 * the folder's limits (folder.ts) and nothing is kept of the source.
 */

import { basename, join, resolve } from "node:path";
import { readSkillFolder, type SkillFile } from "./folder.ts";
import { SKILL_FILE } from "./shelf.ts";

/** A skill read from its source: the folder's name and its files. */
export interface SourcedSkill {
  /** The name of the folder the skill came in, which the specification says its name must match. */
  folder: string;
  files: SkillFile[];
  /** The source as recorded: an absolute path or a URL. */
  source: string;
}

/** A source hob cannot install from, and why: the caller's input is at fault. */
export class SkillSourceError extends Error {
  override name = "SkillSourceError";
}

/**
 * Reads the skill at `source`, a folder path (relative to `cwd`).
 *
 * @example
 * ```ts
 * const { folder, files } = await readSkillSource("./skills/pdf", Deno.cwd());
 * ```
 */
export async function readSkillSource(source: string, cwd: string): Promise<SourcedSkill> {
  const path = resolve(cwd, source);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SkillSourceError(`${source} does not exist`);
    }
    // A name longer than the system allows names nothing there: the caller's input, not hob's fault.
    if ((error as { code?: string }).code === "ENAMETOOLONG") {
      throw new SkillSourceError(
        `${source} is not a path this system can have (a name is too long)`,
      );
    }
    throw error;
  }
  if (!info.isDirectory) {
    throw new SkillSourceError(`${source} is not a folder holding a ${SKILL_FILE}`);
  }
  const dir = await skillDir(path, source);
  const { files } = await readSkillFolder(dir);
  return { folder: basename(dir), files, source: dir };
}

/** `path` when it holds a SKILL.md, else its one sub-folder that does. */
async function skillDir(path: string, source: string): Promise<string> {
  if (await exists(join(path, SKILL_FILE))) return path;
  const found: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.isDirectory && await exists(join(path, entry.name, SKILL_FILE))) {
      found.push(entry.name);
    }
  }
  if (found.length === 1) return join(path, found[0]);
  if (found.length === 0) throw new SkillSourceError(`${source} holds no ${SKILL_FILE}`);
  throw new SkillSourceError(
    `${source} holds ${found.length} skills (${found.sort().join(", ")}); add one folder at a time`,
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
