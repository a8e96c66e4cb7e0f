/**
 * What a CLI command is, and parsing its arguments strictly (args.ts).
 * Bad usage becomes a UsageError: one line naming the problem, exit code 2.
 */

import { ArgsError, type OptionSpecs, parseLine } from "./args.ts";
import { UsageError } from "./exit.ts";

// Every command takes these from here, with the rest of what a command is.
export { CommandError, EXIT, UsageError } from "./exit.ts";

/** The options every command accepts. */
export const COMMON_OPTIONS = {
  home: { type: "string" },
  help: { type: "boolean", short: "h" },
  debug: { type: "boolean" },
} as const satisfies OptionSpecs;

/** A command of the `hob` CLI. */
export interface Command {
  name: string;
  /** One line for `hob --help`. */
  summary: string;
  /** The full `--help` text. */
  help: string;
  options: OptionSpecs;
  /** Positional arguments allowed: [min, max]. */
  positionals: [number, number];
  run(parsed: ParsedArgs): Promise<number>;
}

/** Parsed arguments of a command. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses `args` for `command`, strictly.
 *
 * @example
 * ```ts
 * const { values } = parseCommandArgs(serve, ["--port", "9000"]);
 * ```
 */
export function parseCommandArgs(command: Command, args: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseLine(args, { ...COMMON_OPTIONS, ...command.options });
  } catch (error) {
    if (!(error instanceof ArgsError)) throw error;
    throw new UsageError(`hob ${command.name}: ${error.message}`);
  }
  for (const [name, value] of Object.entries(parsed.values)) {
    // `--home ""` would quietly mean the default home, `--model ""` the default model.
    if (value === "") throw new UsageError(`hob ${command.name}: option '--${name}' needs a value`);
  }
  const [min, max] = command.positionals;
  if (!parsed.values.help) {
    if (parsed.positionals.length < min) {
      throw new UsageError(
        `hob ${command.name}: missing argument — see 'hob ${command.name} --help'`,
      );
    }
    if (parsed.positionals.length > max) {
      throw new UsageError(
        `hob ${command.name}: unexpected argument '${
          parsed.positionals[max]
        }' — see 'hob ${command.name} --help'`,
      );
    }
  }
  return parsed;
}

/** Reads an integer option, or throws a UsageError naming it. */
export function intOption(
  parsed: ParsedArgs,
  name: string,
  range: [number, number],
): number | undefined {
  const raw = parsed.values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (
    typeof raw !== "string" || !/^\d+$/.test(raw) || value < range[0] ||
    value > range[1]
  ) {
    throw new UsageError(
      `--${name} must be an integer from ${range[0]} to ${range[1]}: got '${raw}'`,
    );
  }
  return value;
}

/**
 * An `--args` flag's value as a JSON object (`{}` when absent); anything else
 * is a UsageError that names the command.
 *
 * @example
 * ```ts
 * const args = jsonObjectFlag(parsed.values.args, "hob tool call");
 * ```
 */
export function jsonObjectFlag(
  text: string | boolean | undefined,
  command: string,
): Record<string, unknown> {
  if (text === undefined || typeof text === "boolean") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(
      `${command}: --args must be a JSON object, e.g. --args '{"path": "notes.md"}'`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${command}: --args must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
