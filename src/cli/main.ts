/**
 * The `hob` command line: picks the command, parses its flags, runs it and
 * turns errors into exit codes — 2 for bad usage or configuration, 1 for
 * failures, each as one line without a stack trace unless --debug. Only the
 * command named is loaded (commands.ts): `--version` and `--help` load none.
 */

import { VERSION } from "../version.ts";
import { COMMANDS } from "./commands.ts";
import { CommandError, EXIT, UsageError } from "./exit.ts";
import { err, out, red } from "./output.ts";

const USAGE = `hob ${VERSION} — a personal AI assistant in one Deno program

Usage: hob <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join("\n")}

Options for every command:
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  --debug        print stack traces on errors
  -h, --help     show help for a command

  hob --version  print the version

Run 'hob <command> --help' for a command's options.`;

/**
 * Runs the CLI with `args` and returns the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await main(Deno.args));
 * ```
 */
export async function main(args: string[]): Promise<number> {
  // Global options may come before the command: `hob --home DIR serve`.
  const leading: string[] = [];
  let rest = args;
  while (
    rest.length > 0 && rest[0].startsWith("-") &&
    !["-h", "--help", "--version", "-V"].includes(rest[0])
  ) {
    const [flag] = rest;
    if (flag === "--home" && rest.length > 1) {
      leading.push(flag, rest[1]);
      rest = rest.slice(2);
    } else if (flag === "--home") {
      err("hob: option '--home' needs a value\n");
      return EXIT.usage;
    } else if (flag.startsWith("--home=") || flag === "--debug") {
      leading.push(flag);
      rest = rest.slice(1);
    } else {
      break;
    }
  }
  const debug = args.includes("--debug");
  const [name, ...commandArgs] = rest;

  try {
    if (name === undefined) {
      err(`${USAGE}\n`);
      return EXIT.usage;
    }
    if (name === "--help" || name === "-h" || name === "help") {
      const topic = COMMANDS.find((c) => c.name === commandArgs[0]);
      if (!topic && commandArgs[0] !== undefined) {
        throw new UsageError(`hob: unknown command '${commandArgs[0]}' — see 'hob --help'`);
      }
      out(`${topic ? (await topic.load()).help : USAGE}\n`);
      return EXIT.ok;
    }
    if (name === "--version" || name === "-V") {
      out(`hob ${VERSION} (deno ${Deno.version.deno})\n`);
      return EXIT.ok;
    }
    const entry = COMMANDS.find((c) => c.name === name);
    if (!entry) {
      const { closest } = await import("./closest.ts");
      const near = name.startsWith("-")
        ? undefined
        : closest(name, COMMANDS.map((command) => command.name));
      throw new UsageError(
        name.startsWith("-")
          ? `hob: unknown option '${name}' — see 'hob --help'`
          : near
          ? `hob: unknown command '${name}' — did you mean 'hob ${near}'?`
          : `hob: unknown command '${name}' — see 'hob --help'`,
      );
    }
    const [command, { parseCommandArgs }] = await Promise.all([
      entry.load(),
      import("./command.ts"),
    ]);
    const parsed = parseCommandArgs(command, [...commandArgs, ...leading]);
    if (parsed.values.help) {
      out(`${command.help}\n`);
      return EXIT.ok;
    }
    return await command.run(parsed);
  } catch (error) {
    // A command's bad usage says which command it was: `hob serve: --port must be …`.
    const named = error instanceof UsageError && !error.message.startsWith("hob")
      ? new UsageError(`hob ${name}: ${error.message}`)
      : error;
    return await report(named, debug, args);
  }
}

/** The `--home` of the command line, resolved as commands resolve it. */
async function homeFlag(args: string[]): Promise<string> {
  const { resolveHome } = await import("../home/home.ts");
  const at = args.indexOf("--home");
  const flag = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith("--home="))?.slice(7);
  return resolveHome(flag);
}

async function report(error: unknown, debug: boolean, args: string[]): Promise<number> {
  // The reader went away (`hob models | head`): nothing left to say to it.
  if (error instanceof Deno.errors.BrokenPipe) return EXIT.ok;
  if (error instanceof UsageError) {
    err(`${error.message}\n`);
    return EXIT.usage;
  }
  // Past bad usage a command ran, which has loaded most of these modules already.
  const [{ ConfigError }, { HomeError }, { explainStorage }, { StoreError }] = await Promise.all([
    import("../config/load.ts"),
    import("../home/home.ts"),
    import("../home/storage.ts"),
    import("../store/database.ts"),
  ]);
  if (error instanceof ConfigError) {
    // Every problem hob.yaml has, each on a line of its own: one round of fixing, not several.
    const { problems } = error;
    err(
      problems.length === 1
        ? `hob: ${red("bad config")}: ${error.message}\n`
        : `hob: ${red("bad config")}: ${problems.length} problems:\n${
          problems.map((problem) => `  ${problem.message}\n`).join("")
        }`,
    );
    return EXIT.usage;
  }
  if (debug) {
    console.error(error);
    return EXIT.failure;
  }
  // A full disk or a read-only home, however deep it surfaced: one line naming the home.
  let storage;
  try {
    storage = explainStorage(error, await homeFlag(args));
  } catch { /* no home to name */ }
  if (storage) {
    err(`hob: ${storage.message}\n`);
    return EXIT.failure;
  }
  if (
    error instanceof CommandError || error instanceof HomeError ||
    error instanceof StoreError || error instanceof Deno.errors.AddrInUse ||
    error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotCapable
  ) {
    err(`hob: ${(error as Error).message}\n`);
    return EXIT.failure;
  }
  err(
    `hob: unexpected error: ${
      (error as Error)?.message ?? String(error)
    } (run with --debug for details)\n`,
  );
  return EXIT.failure;
}
