/**
 * Strict parsing of a command line against a table of options, as
 * `node:util`'s `parseArgs({strict: true, allowPositionals: true})` parses
 * it — that was hob's parser, and tests/cli/args_test.ts holds this one to it —
 * without loading Deno's Node layer, whose start (~13 ms, a third of an empty
 * `deno run`) every command paid before doing anything. What differs: a value
 * that looks like a negative number (`--limit -5`, `-m -1`) is taken as the
 * value, so the range check can name it, where parseArgs calls it missing.
 */

import { closest } from "./closest.ts";

/** One option: a flag (`boolean`) or one that takes a value (`string`), maybe with a one-letter `short`. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
}

/** The options a command takes, by long name. */
export type OptionSpecs = Record<string, OptionSpec>;

/** What a command line said. */
export interface ParsedLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** A command line the options do not allow; the message is one clause, e.g. "unknown option '--x'". */
export class ArgsError extends Error {
  override name = "ArgsError";
}

/**
 * Parses `args` against `options`: `--name value`, `--name=value`, `-n value`,
 * `-nvalue`, `-abc` (flags together), `--` (all after are positionals).
 * Repeated options keep the last value.
 *
 * @example
 * ```ts
 * parseLine(["list", "--limit", "5", "-h"], { limit: { type: "string" }, help: { type: "boolean", short: "h" } });
 * // { values: { limit: "5", help: true }, positionals: ["list"] }
 * ```
 */
export function parseLine(args: readonly string[], options: OptionSpecs): ParsedLine {
  const values: ParsedLine["values"] = {};
  const positionals: string[] = [];
  const byShort = new Map(
    Object.entries(options).flatMap(([name, spec]) => spec.short ? [[spec.short, name]] : []),
  );
  const queue = [...args];
  /** Sets option `name`; a string option without an inline value takes the next argument. */
  const take = (name: string, inline: string | undefined) => {
    const spec = options[name];
    if (spec.type === "boolean") {
      if (inline !== undefined) throw new ArgsError(`option '--${name}' does not take a value`);
      values[name] = true;
      return;
    }
    if (inline !== undefined) {
      values[name] = inline;
      return;
    }
    const next = queue[0];
    // A lone `-` is a value (standard input, say); `-x` or `--` is the next option.
    if (next === undefined || (next.length > 1 && next.startsWith("-") && !/^-\d/.test(next))) {
      throw new ArgsError(`option '--${name}' needs a value`);
    }
    values[name] = queue.shift()!;
  };
  while (queue.length > 0) {
    const arg = queue.shift()!;
    if (arg === "--") {
      positionals.push(...queue.splice(0));
    } else if (arg.startsWith("--")) {
      const equals = arg.indexOf("=", 3);
      const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      if (!Object.hasOwn(options, name)) {
        const near = closest(name, Object.keys(options));
        throw new ArgsError(
          `unknown option '--${name}'${near ? ` — did you mean '--${near}'?` : ""}`,
        );
      }
      take(name, equals < 0 ? undefined : arg.slice(equals + 1));
    } else if (arg.startsWith("-") && arg.length > 1) {
      shorts(arg.slice(1));
    } else {
      positionals.push(arg);
    }
  }
  return { values, positionals };

  /** `-h`, `-mVALUE`, or flags together (`-hv`, `-hmVALUE`): a value-taking letter ends the group. */
  function shorts(letters: string): void {
    for (let i = 0; i < letters.length; i++) {
      const name = nameOf(letters[i]);
      if (options[name].type === "string") {
        take(name, i + 1 < letters.length ? letters.slice(i + 1) : undefined);
        return;
      }
      take(name, undefined);
    }
  }

  function nameOf(letter: string): string {
    const name = byShort.get(letter);
    if (name === undefined) throw new ArgsError(`unknown option '-${letter}'`);
    return name;
  }
}
