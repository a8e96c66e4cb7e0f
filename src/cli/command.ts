/**
 * What a CLI command is, and parsing its arguments strictly with node:util's
 * parseArgs. Bad usage becomes a UsageError: one line naming the problem in
 * hob's words (not parseArgs' own), exit code 2.
 */

import { parseArgs } from "node:util";
import { closest } from "./closest.ts";
import { UsageError } from "./exit.ts";

// Every command takes these from here, with the rest of what a command is.
export { CommandError, EXIT, UsageError } from "./exit.ts";

/** One option: a flag (`boolean`) or one that takes a value (`string`), maybe with a one-letter `short`. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
}

/** The options a command takes, by long name. */
export type OptionSpecs = Record<string, OptionSpec>;

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
  const options: OptionSpecs = { ...COMMON_OPTIONS, ...command.options };
  let parsed: ParsedArgs;
  try {
    const line = parseArgs({
      args: negativeValues(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
    parsed = { values: { ...line.values }, positionals: line.positionals };
  } catch (error) {
    // parseArgs' own errors are bad usage; anything else is hob's.
    if (!String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")) throw error;
    throw new UsageError(`hob ${command.name}: ${describeParseError(error as Error, options)}`);
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

/**
 * `--limit -5` as `--limit=-5` and `-m -1` as `-m-1`: parseArgs takes a value
 * that starts with `-` for an option, which would turn a negative number into
 * "needs a value" instead of the range check that names it.
 */
function negativeValues(args: readonly string[], options: OptionSpecs): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") return [...joined, ...args.slice(i)];
    if (takesNext(args[i], options) && /^-\d/.test(args[i + 1] ?? "")) {
      joined.push(`${args[i]}${args[i].startsWith("--") ? "=" : ""}${args[++i]}`);
    } else joined.push(args[i]);
  }
  return joined;
}

/** Whether `arg` is an option that takes the next argument as its value: `--model`, `-m`, `-hm`. */
function takesNext(arg: string, options: OptionSpecs): boolean {
  if (arg.startsWith("--")) return options[arg.slice(2)]?.type === "string";
  if (!arg.startsWith("-") || arg.length < 2) return false;
  const typeOf = (letter: string) =>
    Object.values(options).find((spec) => spec.short !== undefined && spec.short === letter)?.type;
  const letters = [...arg.slice(1)];
  return typeOf(letters.at(-1)!) === "string" &&
    letters.slice(0, -1).every((letter) => typeOf(letter) === "boolean");
}

/**
 * parseArgs' messages mention its internals; say the same in one short
 * clause, naming an option by its long name.
 */
function describeParseError(error: Error, options: OptionSpecs): string {
  const { message } = error;
  const longName = (option: string) => {
    const long = Object.entries(options).find(([, spec]) => `-${spec.short}` === option)?.[0];
    return long === undefined ? option : `--${long}`;
  };
  let match = /^Unknown option '([^']+)'/.exec(message);
  if (match) {
    const near = match[1].startsWith("--")
      ? closest(match[1].slice(2), Object.keys(options))
      : undefined;
    return `unknown option '${match[1]}'${near ? ` — did you mean '--${near}'?` : ""}`;
  }
  match = /^Option '(?:-\w, )?(--?[^ ']+)(?: <value>)?' argument (?:missing|is ambiguous)/
    .exec(message);
  if (match) return `option '${longName(match[1])}' needs a value`;
  match = /^Option '(?:-\w, )?(--?[^ ']+)' does not take an argument/.exec(message);
  if (match) return `option '${longName(match[1])}' does not take a value`;
  return message.split("\n")[0];
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
