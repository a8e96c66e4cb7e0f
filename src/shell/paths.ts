/**
 * Where a path in a command line leads, and whether that is inside the
 * allowed directories. Paths are followed through the symbolic links that
 * exist now, as the kernel would follow them (`link/..` is the parent of the
 * link's target, not the workspace), so a link inside the workspace that
 * points out is seen as out. Globs are judged by every entry they could match.
 */

import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../sandbox/paths.ts";
import type { Budget } from "./budget.ts";
import type { Char } from "./expand.ts";

/** Device files that are harmless to name: read from, or (the first ones) write to. */
const WRITABLE_DEVICES = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/fd/1",
  "/dev/fd/2",
]);
const READABLE_DEVICES = new Set([
  ...WRITABLE_DEVICES,
  "/dev/zero",
  "/dev/urandom",
  "/dev/random",
  "/dev/stdin",
  "/dev/fd/0",
]);
/** Entries a glob may range over before the policy stops counting and asks. */
const MAX_GLOB_ENTRIES = 2_000;
/** Symbolic links followed in one path before it counts as a loop. */
const MAX_LINKS = 40;

/** What a path is used for. */
export type Access = "read" | "write";

/** Where paths resolve and may point. */
export interface PathScope {
  /** The allowed directories, as given and as their real paths. */
  roots: string[];
  /** The working directory, or null when an earlier `cd` made it unknown. */
  cwd: string | null;
  /** What the line's judging may still spend: every look-up on disk is charged. */
  budget: Budget;
}

/** The verdict on one path. */
export type PathVerdict =
  | { kind: "inside"; path: string }
  | { kind: "outside"; path: string }
  | { kind: "device" }
  | { kind: "network"; path: string }
  | { kind: "unknown"; reason: string };

/** Canonical forms of the roots: as given (normalised) and through realpath. */
export function canonicalRoots(roots: string[]): string[] {
  const all = new Set<string>();
  for (const root of roots) {
    all.add(resolve(root));
    try {
      all.add(Deno.realPathSync(root));
    } catch {
      // A root that does not exist yet is taken as written.
    }
  }
  return [...all];
}

/** Judges one path: inside the roots, outside, a harmless device, or a bash network path. */
export function judgePath(
  path: string,
  access: Access,
  scope: PathScope,
): PathVerdict {
  if (path.includes("\0")) return { kind: "unknown", reason: "a path contains a NUL byte" };
  if (!isAbsolute(path) && scope.cwd === null) {
    return {
      kind: "unknown",
      reason: `'${path}' is relative to a directory the policy does not know`,
    };
  }
  const absolute = resolve(scope.cwd ?? "/", path);
  // bash itself opens /dev/tcp/HOST/PORT and /dev/udp/… as network connections.
  if (/^\/dev\/(tcp|udp)\//.test(absolute)) return { kind: "network", path: absolute };
  if ((access === "write" ? WRITABLE_DEVICES : READABLE_DEVICES).has(absolute)) {
    return { kind: "device" };
  }
  // Not join(): it would resolve ".." by the text, and the kernel resolves it through links.
  const real = followLinks(isAbsolute(path) ? path : `${scope.cwd}/${path}`, 0, scope.budget);
  if (real === null) {
    return { kind: "unknown", reason: `'${path}' goes through links the policy cannot follow` };
  }
  return scope.roots.some((root) => isInside(real, root))
    ? { kind: "inside", path: real }
    : { kind: "outside", path: real };
}

/**
 * Resolves a path component by component, following each existing symbolic
 * link (the kernel's `..` is physical); the part that does not exist yet is
 * resolved by its text. Null when links loop.
 */
function followLinks(path: string, depth: number, budget: Budget): string | null {
  if (depth > MAX_LINKS) return null;
  const parts = path.split("/").filter((part) => part.length > 0);
  let current = "/";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    budget.entries();
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (error) {
      // What does not exist yet resolves by its text; what cannot be looked at is unknown.
      return isMissing(error) ? resolve(next, ...parts.slice(i + 1)) : null;
    }
    if (info.isSymlink) {
      let target: string;
      try {
        target = Deno.readLinkSync(next);
      } catch {
        return null;
      }
      const followed = followLinks(
        isAbsolute(target) ? target : `${current}/${target}`,
        depth + 1,
        budget,
      );
      if (followed === null) return null;
      current = followed;
    } else {
      current = next;
    }
  }
  return current;
}

/** A path (or one of its directories) that does not exist: nothing there to follow. */
export function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** What a glob could match, judged before bash expands it. */
export interface GlobVerdict {
  /** Paths it could match that lead outside the roots. */
  outside: string[];
  /** Set when the matches cannot be judged (too many, `..` after a pattern, an unknown directory). */
  unknown?: string;
  /** Set when a match could start with `-` and so become an option. */
  dashed?: string;
}

/**
 * Judges a glob by every directory entry it could range over (a superset of
 * its matches): the literal directory before the first pattern must be inside
 * the roots, and so must every entry under it that the pattern spans. With
 * `optionPosition`, an entry starting with `-` is reported, since bash would
 * pass it to the program where it reads options.
 */
export function judgeGlob(
  chars: Char[],
  scope: PathScope,
  optionPosition: boolean,
): GlobVerdict {
  const text = chars.map((c) => c.c).join("");
  const components = splitComponents(chars);
  const absolute = text.startsWith("/");
  const firstPattern = components.findIndex((component) => component.pattern);
  const literal = components.slice(0, firstPattern).map((component) => component.text);
  const rest = components.slice(firstPattern);
  if (rest.some((component) => !component.pattern && component.text === "..")) {
    return { outside: [], unknown: `the pattern '${text}' climbs out with '..' after a wildcard` };
  }
  if (!absolute && scope.cwd === null) {
    return {
      outside: [],
      unknown: `'${text}' is relative to a directory the policy does not know`,
    };
  }
  if (optionPosition && text.startsWith("-")) {
    return { outside: [], dashed: `the pattern '${text}' looks like an option` };
  }
  const base = [absolute ? "" : scope.cwd!, ...literal].join("/") || "/";
  const verdict: GlobVerdict = { outside: [] };
  let candidates = [base];
  let visited = 0;
  for (let level = 0; level < rest.length; level++) {
    const component = rest[level];
    const next: string[] = [];
    for (const directory of candidates) {
      if (!component.pattern) {
        next.push(`${directory}/${component.text}`);
        continue;
      }
      // Read no further than the entries the pattern may still range over.
      const names = listDirectory(directory, MAX_GLOB_ENTRIES - visited + 1, scope.budget);
      if (names === null) {
        return {
          outside: [],
          unknown: `'${directory}' cannot be read to see what '${text}' matches`,
        };
      }
      // Only a pattern starting with a literal dot can match "." and ".." (older bash does).
      if (component.text.startsWith(".")) names.push(".", "..");
      for (const name of names) {
        if (++visited > MAX_GLOB_ENTRIES) {
          return {
            outside: [],
            unknown: `the pattern '${text}' ranges over too many files to check`,
          };
        }
        if (
          optionPosition && level === 0 && firstPattern === 0 && !absolute && name.startsWith("-")
        ) {
          verdict.dashed = `'${name}' in the directory would match '${text}' and read as an option`;
        }
        next.push(`${directory}/${name}`);
      }
    }
    candidates = next;
  }
  for (const candidate of [base, ...candidates]) {
    const judged = judgePath(candidate, "read", { ...scope, cwd: "/" });
    if (judged.kind === "outside" || judged.kind === "network") verdict.outside.push(candidate);
    if (judged.kind === "unknown") verdict.unknown = judged.reason;
  }
  return verdict;
}

interface Component {
  text: string;
  pattern: boolean;
}

/** Splits a glob at `/`, noting which components have an unquoted wildcard. */
function splitComponents(chars: Char[]): Component[] {
  const components: Component[] = [];
  let current: Component = { text: "", pattern: false };
  for (const char of chars) {
    if (char.c === "/") {
      if (current.text) components.push(current);
      current = { text: "", pattern: false };
      continue;
    }
    current.text += char.c;
    if (!char.quoted && (char.c === "*" || char.c === "?" || char.c === "[")) {
      current.pattern = true;
    }
  }
  if (current.text) components.push(current);
  return components;
}

/**
 * A directory's entries, at most `limit` of them (a huge directory is not read
 * to its end); null when it exists but cannot be read (its matches are unknown).
 */
function listDirectory(directory: string, limit: number, budget: Budget): string[] | null {
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(directory)) {
      if (names.length >= limit) break;
      names.push(entry.name);
    }
  } catch (error) {
    // Not there, or not a directory: the pattern matches nothing there.
    return isMissing(error) ? [] : null;
  }
  // Charged after: what `limit` lets be read is already bounded.
  budget.entries(names.length + 1);
  return names;
}
