/**
 * What a CLI command is, and parsing its arguments with node:util parseArgs.
 * Bad usage becomes a UsageError: one line naming the problem, exit code 2.
 */

import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./exit.ts";

// Every command takes these from here, with the rest of what a command is.
export { CommandError, EXIT, UsageError } from "./exit.ts";

/** The options every command accepts. */
export const COMMON_OPTIONS = {
  home: { type: "string" },
  help: { type: "boolean", short: "h" },
  debug: { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/** A command of the `hob` CLI. */
export interface Command {
  name: string;
  /** One line for `hob --help`. */
  summary: string;
  /** The full `--help` text. */
  help: string;
  options: NonNullable<ParseArgsConfig["options"]>;
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
  const options = { ...COMMON_OPTIONS, ...command.options };
  let parsed;
  try {
    parsed = parseArgs({
      args: negativeValues(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(
      `hob ${command.name}: ${describeParseError(error as Error)}`,
    );
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
  return parsed as ParsedArgs;
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
 * `--limit -5` as `--limit=-5`: node:util takes a value that starts with `-` for
 * a flag, which would turn a negative number into "needs a value" instead of
 * the range check that names it.
 */
function negativeValues(
  args: string[],
  options: NonNullable<ParseArgsConfig["options"]>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = /^--([\w-]+)$/.exec(args[i])?.[1];
    if (option && options[option]?.type === "string" && /^-\d/.test(args[i + 1] ?? "")) {
      out.push(`${args[i]}=${args[++i]}`);
    } else out.push(args[i]);
    if (args[i] === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
  }
  return out;
}

/** node:util's messages mention internals; say the same in one short clause. */
function describeParseError(error: Error): string {
  const message = error.message;
  let match = /^Unknown option '([^']+)'/.exec(message);
  if (match) return `unknown option '${match[1]}'`;
  match = /^Option '(?:-\w, )?(--?[\w-]+)(?: <value>)?' argument (missing|is ambiguous)/
    .exec(message);
  if (match) return `option '${match[1]}' needs a value`;
  match = /^Option '(?:-\w, )?(--?[\w-]+)' does not take an argument/.exec(message);
  if (match) return `option '${match[1]}' does not take a value`;
  return message.split("\n")[0];
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
