/**
 * Opening the home a command names (`--home`, HOB_HOME, ~/.hob). Only `hob
 * init`, `hob serve` and the commands that start a conversation (`ask`,
 * `chat`) create a home; every other command refuses a directory that is not
 * one, so a typo in `--home` creates nothing.
 */

import { inHome, resolveHome } from "../home/where.ts";
import type { Hob } from "../app/hob.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { CommandError, type ParsedArgs } from "./command.ts";

/** What only a hob home holds: any one of them makes a directory one. */
const HOME_MARKERS = ["hob.yaml", "token", "hob.db"];

/** The home a command works on. */
export function homeOf(parsed: ParsedArgs): string {
  return resolveHome(parsed.values.home as string | undefined);
}

/**
 * The home a command works on, refused with a CommandError (exit 1) that
 * says how to create one when the directory is not a hob home.
 *
 * @example
 * ```ts
 * const home = await existingHome(parsed); // "/home/me/.hob"
 * ```
 */
export async function existingHome(parsed: ParsedArgs): Promise<string> {
  const home = homeOf(parsed);
  for (const marker of HOME_MARKERS) {
    if (await isFile(inHome(home, marker))) return home;
  }
  throw new CommandError(
    `${home} is not a hob home — check --home, or create one with 'hob init --home ${home}'`,
  );
}

/**
 * Opens the home a command names, which must exist (see
 * {@linkcode existingHome}); `log` hears of MCP servers.
 *
 * @example
 * ```ts
 * const hob = await openHome(parsed);
 * ```
 */
export async function openHome(parsed: ParsedArgs, log?: (line: string) => void): Promise<Hob> {
  return await openHomeAt(await existingHome(parsed), log);
}

/**
 * Opens the home at `home` (created from the templates when it is not one):
 * the handle a command works through, never the runtime behind it.
 *
 * @example
 * ```ts
 * const hob = await openHomeAt("/home/me/.hob");
 * ```
 */
export async function openHomeAt(home: string, log?: (line: string) => void): Promise<Hob> {
  // Loaded here, not with this module: a command may find it need not open the home at all.
  const { openRuntime } = await import("../runtime/runtime.ts");
  return await openRuntime({ home, log });
}

/**
 * Opens the home a command names, creating it on first use: for `serve` and
 * the commands that start a conversation.
 *
 * @example
 * ```ts
 * const hob = await openOrCreateHome(parsed);
 * ```
 */
export async function openOrCreateHome(
  parsed: ParsedArgs,
  log?: (line: string) => void,
): Promise<Hob> {
  return await openHomeAt(homeOf(parsed), log);
}

/**
 * Opens the home for a command that runs a process of hob's (`hob serve`,
 * `hob worker`): the runtime whole, which only they start and stop. `create`
 * makes the home on first use (serve); otherwise it must exist.
 *
 * @example
 * ```ts
 * const runtime = await openProcessHome(parsed, { create: true });
 * await runtime.start();
 * ```
 */
export async function openProcessHome(
  parsed: ParsedArgs,
  options: { create: boolean; log?: (line: string) => void },
): Promise<Runtime> {
  const home = options.create ? homeOf(parsed) : await existingHome(parsed);
  const { openRuntime } = await import("../runtime/runtime.ts");
  return await openRuntime({ home, log: options.log });
}

/** Whether a file is at `path`; one that cannot be looked at counts, so opening it says why. */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    return !(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory);
  }
}
