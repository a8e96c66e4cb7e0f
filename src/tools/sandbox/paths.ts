/**
 * The one containment check every file path a tool takes goes through before
 * any file access. Deno's `--allow-read=DIR` checks the path string, not where
 * symlinks lead, so `DIR/link/secret` with `link -> /etc` passes Deno; this
 * check does not let it. Knows nothing of tools or permissions.
 */

import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** Longest path accepted, in bytes (Linux PATH_MAX). */
const MAX_PATH_BYTES = 4096;
/** Longest single path component accepted, in bytes (NAME_MAX). */
const MAX_NAME_BYTES = 255;

/** A path a tool may not use; the message says why, in words the model can act on. */
export class PathError extends Error {
  override name = "PathError";
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`Path '${path.length > 200 ? `${path.slice(0, 200)}…` : path}' ${reason}`);
    this.path = path;
  }
}

/** Options for {@linkcode resolveInRoots}. */
export interface ResolveOptions {
  /**
   * The path may name something that does not exist yet (a file to create);
   * its nearest existing ancestor must then be inside a root.
   * @default {false}
   */
  allowMissing?: boolean;
}

/**
 * Resolves `path` to a real, absolute path inside one of `roots`, or throws a
 * PathError. The rules, in order:
 *
 * 1. NUL bytes are rejected (they truncate paths in C APIs).
 * 2. Paths over 4096 bytes, or with a component over 255 bytes, are rejected.
 * 3. The path is normalised to Unicode NFC, so look-alike spellings are one path.
 * 4. `~` is not expanded: a path starting with `~` is rejected, never taken as home.
 * 5. A relative path is resolved against the first root (the workspace).
 * 6. After resolving `.` and `..`, the path must be inside a root: no `..` escapes,
 *    no absolute paths elsewhere.
 * 7. Every existing component from the root down is checked with lstat; a symlink
 *    anywhere — the leaf or a middle directory — must resolve inside a root.
 * 8. A missing path is allowed only with `allowMissing`, and then its nearest
 *    existing ancestor must be a real directory inside a root.
 *
 * The roots themselves are canonicalised with realpath first (a root may be a
 * symlink, such as macOS's /tmp).
 *
 * @example
 * ```ts
 * const file = await resolveInRoots("notes/todo.md", ["/home/me/.hob/workspace"]);
 * await Deno.readTextFile(file);
 * ```
 */
export async function resolveInRoots(
  path: string,
  roots: readonly string[],
  options: ResolveOptions = {},
): Promise<string> {
  if (roots.length === 0) throw new PathError(path, "cannot be used: no directories are allowed");
  if (typeof path !== "string" || path.length === 0) throw new PathError(String(path), "is empty");
  if (path.includes("\0")) throw new PathError(path.replaceAll("\0", "\\0"), "contains a NUL byte");
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > MAX_PATH_BYTES) throw new PathError(path, `is longer than ${MAX_PATH_BYTES} bytes`);
  for (const part of path.split(/[\\/]/)) {
    if (new TextEncoder().encode(part).length > MAX_NAME_BYTES) {
      throw new PathError(path, `has a name longer than ${MAX_NAME_BYTES} bytes`);
    }
  }
  const normalised = path.normalize("NFC");
  if (normalised.startsWith("~")) {
    throw new PathError(
      path,
      "starts with '~', which is not expanded; use a path inside the workspace",
    );
  }

  const realRoots = await Promise.all(roots.map(canonicalRoot));
  const given = isAbsolute(normalised) ? resolve(normalised) : resolve(realRoots[0], normalised);
  // A root may be named through a symlink (/tmp on macOS): rebase onto its real path.
  let target = "";
  let root = "";
  for (let i = 0; i < roots.length && !root; i++) {
    for (const spelling of [realRoots[i], resolve(roots[i])]) {
      if (isInside(given, spelling)) {
        root = realRoots[i];
        target = join(root, relative(spelling, given));
        break;
      }
    }
  }
  if (!root) {
    throw new PathError(path, `is outside the allowed directories (${realRoots.join(", ")})`);
  }

  // Walk from the root down, following each symlink only if it stays inside a root.
  const parts = relative(root, target).split(sep).filter((p) => p.length > 0);
  let current = root;
  for (let i = 0; i < parts.length; i++) {
    const next = join(current, parts[i]);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new PathError(path, `cannot be checked: ${(error as Error).message}`);
      }
      if (!options.allowMissing) throw new PathError(path, "does not exist");
      return join(current, ...parts.slice(i));
    }
    if (info.isSymlink) {
      let real: string;
      try {
        real = await Deno.realPath(next);
      } catch {
        throw new PathError(
          path,
          "goes through a symbolic link that points nowhere or out of reach",
        );
      }
      if (!realRoots.some((r) => isInside(real, r))) {
        throw new PathError(
          path,
          "goes through a symbolic link that leads outside the allowed directories",
        );
      }
      current = real;
    } else {
      current = next;
    }
    if (i < parts.length - 1 && !(await Deno.stat(current)).isDirectory) {
      throw new PathError(path, `goes through '${parts[i]}', which is not a directory`);
    }
  }
  return current;
}

/** Whether `path` is `root` or below it (both absolute and normalised). */
export function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  const withSep = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(withSep);
}

async function canonicalRoot(root: string): Promise<string> {
  try {
    return await Deno.realPath(root);
  } catch {
    return resolve(root);
  }
}
