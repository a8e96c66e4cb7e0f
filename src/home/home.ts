/**
 * The hob home directory: where it is, and creating it from the templates
 * embedded in the program (never read from the source tree at run time).
 * Knows the layout of a home, nothing about what the files mean.
 */

import { dirname, join } from "node:path";
import soulTemplate from "../../identity/SOUL.md" with { type: "text" };
import userTemplate from "../../identity/USER.md" with { type: "text" };
import heartbeatTemplate from "../../identity/HEARTBEAT.md" with {
  type: "text",
};
import memoryTemplate from "../../memory/MEMORY.md" with { type: "text" };
import configTemplate from "./hob.default.yaml" with { type: "text" };
import rollDiceExample from "../../tools/roll_dice.ts" with { type: "text" };
import wordCountExample from "../../tools/word_count.ts" with { type: "text" };
import pressReleaseSkill from "../../skills/press_release.ts" with { type: "text" };
import { Buffer } from "node:buffer";
import { explainStorage } from "./storage.ts";
import { HomeError, tokenPath } from "./where.ts";

// Where the home is lives apart, for the commands that only need to find one.
export { HomeError, readToken, resolveHome, tokenPath } from "./where.ts";

/** Directories every home has. */
const HOME_DIRS = [
  "identity",
  "memory",
  "tools",
  "skills",
  "uploads",
  "workspace",
] as const;

/** Files every home has, and their embedded templates: one that is missing is written again. */
const HOME_FILES: ReadonlyArray<readonly [string, string]> = [
  ["hob.yaml", configTemplate],
  ["identity/SOUL.md", soulTemplate],
  ["identity/USER.md", userTemplate],
  ["identity/HEARTBEAT.md", heartbeatTemplate],
  ["memory/MEMORY.md", memoryTemplate],
];

/**
 * Examples written into a directory of {@linkcode HOME_DIRS} when hob creates
 * it: an example the owner deletes stays deleted.
 */
const EXAMPLE_FILES: ReadonlyArray<readonly [string, string]> = [
  ["tools/roll_dice.ts", rollDiceExample],
  ["tools/word_count.ts", wordCountExample],
  ["skills/press_release.ts", pressReleaseSkill],
];

/** Bytes of randomness in an API token. */
const TOKEN_BYTES = 32;

/** What {@linkcode ensureHome} found and did. */
export interface EnsureHomeResult {
  home: string;
  /** Paths created by this call, relative to the home; empty when it existed whole. */
  created: string[];
}

/**
 * Creates the home and anything missing in it from the embedded templates, and
 * a random API token (mode 0600). Never overwrites a file that exists, so a
 * user's edits survive; the example tools and skill come only with the
 * directory they live in, so one the user deleted does not come back.
 *
 * @example
 * ```ts
 * const { created } = await ensureHome("/home/me/.hob");
 * ```
 */
export async function ensureHome(home: string): Promise<EnsureHomeResult> {
  // Every start of every command comes here: a home that has it all is seen at once. One
  // that lacks anything, or whose token others can read, takes the careful path below.
  const tokenMode = completeHome(home);
  if (tokenMode !== null && (Deno.build.os === "windows" || (tokenMode & 0o077) === 0)) {
    return { home, created: [] };
  }
  const created: string[] = [];
  try {
    if (!(await exists(home))) created.push(".");
    await Deno.mkdir(home, { recursive: true, mode: 0o700 });
    for (const dir of HOME_DIRS) {
      const path = join(home, dir);
      if (await exists(path)) continue;
      await Deno.mkdir(path, { recursive: true, mode: 0o700 });
      created.push(`${dir}/`);
      // At once: a start that fails later must not leave the directory without its examples.
      for (const [file, content] of EXAMPLE_FILES.filter(([file]) => dirname(file) === dir)) {
        if (await writeNew(join(home, file), content, 0o600)) created.push(file);
      }
    }
    for (const [file, content] of HOME_FILES) {
      if (await writeNew(join(home, file), content, 0o600)) created.push(file);
    }
    const token = base64url(
      crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)),
    );
    if (await writeNew(tokenPath(home), `${token}\n`, 0o600)) {
      created.push("token");
    } else if (Deno.build.os !== "windows") {
      // The token is hob's own secret: whoever loosened it, it goes back to the owner alone.
      const mode = ((await Deno.stat(tokenPath(home))).mode ?? 0) & 0o777;
      if ((mode & 0o077) !== 0) await Deno.chmod(tokenPath(home), 0o600);
    }
  } catch (error) {
    throw explainStorage(error, home) ?? new HomeError(
      `Cannot create the hob home ${home}: ${(error as Error).message}`,
      home,
      { cause: error },
    );
  }
  return { home, created };
}

/**
 * What in the home other users of this machine can read: the home itself or
 * the token, with group or other permission bits. Empty when both are private
 * (and always on Windows, which has no such bits).
 *
 * @example
 * ```ts
 * for (const problem of await homeExposure(home)) console.warn(problem);
 * ```
 */
export async function homeExposure(home: string): Promise<string[]> {
  if (Deno.build.os === "windows") return [];
  const problems: string[] = [];
  for (const [path, fix] of [[home, "chmod 700"], [tokenPath(home), "chmod 600"]] as const) {
    const mode = ((await Deno.stat(path)).mode ?? 0) & 0o777;
    if ((mode & 0o077) !== 0) {
      problems.push(`${path} is open to other users (mode ${mode.toString(8)}) — ${fix} it`);
    }
  }
  return problems;
}

/**
 * The token's mode when every directory and file a home starts with is
 * there, else null: one look at each without waiting on the event loop (~15
 * calls). Anything else, an error included, takes the careful path that
 * creates and explains.
 */
function completeHome(home: string): number | null {
  try {
    for (const dir of HOME_DIRS) Deno.lstatSync(join(home, dir));
    for (const [file] of HOME_FILES) Deno.lstatSync(join(home, file));
    return (Deno.statSync(tokenPath(home)).mode ?? 0) & 0o777;
  } catch {
    return null;
  }
}

/** Writes a file only if it does not exist; true when it wrote. */
async function writeNew(
  path: string,
  content: string,
  mode: number,
): Promise<boolean> {
  try {
    await Deno.writeTextFile(path, content, { createNew: true, mode });
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  }
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

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}
