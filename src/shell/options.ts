/**
 * Command-line options read the way GNU getopt_long reads them, so that every
 * spelling of an option is one option: `--output=x`, `--output x`, `--out=x`
 * (a unique prefix), `-ox`, `-o x`, and `-no x` (flags bundled before it).
 * Each option in a program's table says what its value is: harmless text, a
 * path read or written, a program run, and so on. An option the table does
 * not know is reported, never guessed.
 */

import type { Field } from "./expand.ts";

/** What an option (or its value, or an operand) does. */
export type Effect =
  /** Harmless text: a pattern, a number, a format. */
  | "text"
  /** A path it reads. */
  | "read"
  /** A path it writes or creates. */
  | "write"
  /** A file that names further files to use, which the policy cannot see. */
  | "list"
  /** Runs another program or code. */
  | "exec"
  /** Talks to the network. */
  | "net"
  /** A path whose contents it sends over the network. */
  | "upload"
  /** Something the policy does not judge: it asks. */
  | "ask";

/** One option of a program. */
export interface OptionSpec {
  /** How it is written first in the table: "o" or "output". */
  name: string;
  /** Whether it takes a value: `--color[=WHEN]` is optional (only with `=`, or glued to a short option). */
  arg: "none" | "required" | "optional";
  /** What the value does (or the option itself, for a flag). */
  effect: Effect;
}

/** A program's options, by short letter and by long name. */
export interface OptionTable {
  short: Map<string, OptionSpec>;
  long: Map<string, OptionSpec>;
}

/**
 * Builds a table from a compact list: `a|all` is a flag with two names,
 * `o|output=write` takes a value that is written, `color?=` takes an optional
 * text value, `C!ask` is a flag the policy asks about.
 *
 * @example
 * ```ts
 * const sort = optionTable("r|reverse o|output=write compress-program=exec");
 * ```
 */
export function optionTable(definition: string): OptionTable {
  const table: OptionTable = { short: new Map(), long: new Map() };
  for (const token of definition.split(/\s+/).filter(Boolean)) {
    const match = /^([^=!?]+)(\?)?(?:=([a-z]*)|!([a-z]+))?$/.exec(token);
    if (!match) throw new Error(`bad option definition '${token}'`);
    const [, names, optional, valueEffect, flagEffect] = match;
    const spec: OptionSpec = {
      name: names.split("|")[0],
      arg: valueEffect === undefined ? "none" : optional ? "optional" : "required",
      effect: ((valueEffect || flagEffect) ?? "text") as Effect,
    };
    for (const name of names.split("|")) {
      (name.length === 1 ? table.short : table.long).set(name, spec);
    }
  }
  return table;
}

/** How a program reads its command line. */
export interface ParseRules {
  /** Options end at the first operand (getopt's "+", as env, nice and timeout use). */
  stopAtOperand?: boolean;
  /** `-5` is an option (head, tail, grep, nice). */
  numeric?: boolean;
  /** A short option's value is always the next argument, never the rest of the group (tree). */
  valueFromNext?: boolean;
}

/** One option as used on the command line. */
export interface UsedOption {
  spec: OptionSpec;
  /** As written, for messages: "--out=x", "-o". */
  written: string;
  value?: Field;
}

/** A command line split into options and operands. */
export interface ParsedArgs {
  options: UsedOption[];
  operands: Field[];
  /** Which operands came before `--` or the first operand, where a glob match could read as an option. */
  operandsInOptionPosition: boolean[];
  /** Options the table does not know, or abbreviations that fit several. */
  unknown: string[];
  /** Options (or values) that are globs: bash may turn them into several words or other options. */
  globbed: string[];
}

/**
 * Splits arguments into options and operands by the program's table, the way
 * getopt_long would (options may follow operands unless `stopAtOperand`).
 */
export function parseArgs(args: Field[], table: OptionTable, rules: ParseRules = {}): ParsedArgs {
  const parsed: ParsedArgs = {
    options: [],
    operands: [],
    operandsInOptionPosition: [],
    unknown: [],
    globbed: [],
  };
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const text = arg.text;
    if (optionsDone || text === "-" || !text.startsWith("-")) {
      parsed.operands.push(arg);
      parsed.operandsInOptionPosition.push(!optionsDone);
      if (rules.stopAtOperand) optionsDone = true;
      continue;
    }
    if (text === "--") {
      optionsDone = true;
      continue;
    }
    if (arg.glob) parsed.globbed.push(text);
    if (rules.numeric && /^-[0-9]+$/.test(text)) continue;
    const next = () => {
      const value = args[i + 1];
      if (value) i += 1;
      if (value?.glob) parsed.globbed.push(value.text);
      return value;
    };
    if (text.startsWith("--")) {
      parseLong(text, table, parsed, next);
    } else {
      parseShortGroup(text, table, parsed, next, rules);
    }
  }
  return parsed;
}

function parseLong(
  text: string,
  table: OptionTable,
  parsed: ParsedArgs,
  next: () => Field | undefined,
): void {
  const equals = text.indexOf("=");
  const name = text.slice(2, equals < 0 ? undefined : equals);
  const spec = findLong(name, table);
  if (spec === undefined) {
    parsed.unknown.push(text);
    return;
  }
  if (spec === "ambiguous") {
    parsed.unknown.push(`${text} (ambiguous)`);
    return;
  }
  let value: Field | undefined;
  if (equals >= 0) value = { text: text.slice(equals + 1) };
  else if (spec.arg === "required") value = next();
  parsed.options.push({ spec, written: text, value });
}

/**
 * getopt_long's lookup: an exact name, else a prefix that fits one option.
 * So a table must list only options the program really has: a made-up name
 * could make a prefix look unique here while the program reads it as another.
 */
function findLong(name: string, table: OptionTable): OptionSpec | "ambiguous" | undefined {
  const exact = table.long.get(name);
  if (exact) return exact;
  if (name === "") return undefined;
  const matches = new Set<OptionSpec>();
  for (const [long, spec] of table.long) if (long.startsWith(name)) matches.add(spec);
  if (matches.size === 1) return [...matches][0];
  return matches.size > 1 ? "ambiguous" : undefined;
}

function parseShortGroup(
  text: string,
  table: OptionTable,
  parsed: ParsedArgs,
  next: () => Field | undefined,
  rules: ParseRules,
): void {
  const letters = [...text.slice(1)];
  for (let j = 0; j < letters.length; j++) {
    const spec = table.short.get(letters[j]);
    if (!spec) {
      parsed.unknown.push(`-${letters[j]}${j === 0 ? "" : ` (in ${text})`}`);
      // A letter getopt rejects ends the program with an error; the rest is not read.
      return;
    }
    const written = `-${letters[j]}`;
    if (spec.arg === "none") {
      parsed.options.push({ spec, written });
      continue;
    }
    const rest = letters.slice(j + 1).join("");
    if (rules.valueFromNext && spec.arg === "required") {
      parsed.options.push({ spec, written, value: next() });
      continue;
    }
    if (rest) {
      parsed.options.push({ spec, written, value: { text: rest } });
    } else {
      parsed.options.push({ spec, written, value: spec.arg === "required" ? next() : undefined });
    }
    return;
  }
}
