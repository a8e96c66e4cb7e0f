/**
 * hob's command-line parser against the one it replaced: node:util's
 * parseArgs (strict, positionals allowed) behind the same wording, over every
 * short command line from a pool of awkward arguments — values, groups of
 * flags, `=`, `--`, a lone `-`, unknown options, negative numbers. Two
 * differences are meant: a negative number is a value after a short option
 * too, and a short option's missing value is named by its long name.
 */

import { closest } from "../../src/cli/closest.ts";
import { parseArgs } from "node:util";
import { ArgsError, type OptionSpecs, parseLine } from "../../src/cli/args.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { CommandError } from "../../src/cli/exit.ts";
import { parseCommandArgs } from "../../src/cli/command.ts";

const OPTIONS: OptionSpecs = {
  home: { type: "string" },
  help: { type: "boolean", short: "h" },
  json: { type: "boolean", short: "j" },
  model: { type: "string", short: "m" },
  limit: { type: "string" },
};

const POOL = [
  "list",
  "two words",
  "-",
  "--",
  "--help",
  "-h",
  "-hj",
  "-hm",
  "-hmx",
  "-jh",
  "-mx",
  "-m",
  "-x",
  "-hx",
  "--json",
  "--json=yes",
  "--model",
  "--model=gpt",
  "--model=",
  "--limit",
  "--limit=-5",
  "-5",
  "7",
  "--nope",
  "--nope=1",
  "--=x",
  "--home",
  "/tmp/h",
  "--help=no",
];

/** What hob's parser was: node's parseArgs, `--name -5` joined first, its errors reworded. */
function previous(args: string[]): { values: Record<string, unknown>; positionals: string[] } {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = /^--([\w-]+)$/.exec(args[i])?.[1];
    if (option && OPTIONS[option]?.type === "string" && /^-\d/.test(args[i + 1] ?? "")) {
      joined.push(`${args[i]}=${args[++i]}`);
    } else joined.push(args[i]);
    if (args[i] === "--") {
      joined.push(...args.slice(i + 1));
      break;
    }
  }
  try {
    const parsed = parseArgs({
      args: joined,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...parsed.values }, positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message;
    let match = /^Unknown option '([^']+)'/.exec(message);
    if (match) throw new ArgsError(`unknown option '${match[1]}'`);
    match = /^Option '(?:-\w, )?(--?[\w-]+)(?: <value>)?' argument (missing|is ambiguous)/
      .exec(message);
    // parseArgs named `-m` when its value looked like an option and `--model` when it was
    // missing; hob's parser names the long option both times.
    const long = Object.entries(OPTIONS).find(([, spec]) => `-${spec.short}` === match?.[1]);
    if (match) throw new ArgsError(`option '${long ? `--${long[0]}` : match[1]}' needs a value`);
    match = /^Option '(?:-\w, )?(--?[\w-]+)' does not take an argument/.exec(message);
    if (match) throw new ArgsError(`option '${match[1]}' does not take a value`);
    throw error;
  }
}

function outcome(parse: () => unknown): unknown {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ArgsError) return `error: ${error.message}`;
    throw error;
  }
}

/** A value-taking short option (alone or ending a group) followed by a negative number. */
function takesNegativeByShort(args: string[]): boolean {
  return args.some((arg, i) =>
    /^-[hj]*m$/.test(arg) && /^-\d/.test(args[i + 1] ?? "") &&
    !args.slice(0, i).includes("--")
  );
}

Deno.test("the parser reads every short command line as node:util's parseArgs did", () => {
  let compared = 0;
  const lines: string[][] = [[]];
  for (const a of POOL) {
    lines.push([a]);
    for (const b of POOL) {
      lines.push([a, b]);
      for (const c of POOL) lines.push([a, b, c]);
    }
  }
  for (const args of lines) {
    if (takesNegativeByShort(args)) continue;
    assertEquals(
      outcome(() => parseLine(args, OPTIONS)),
      outcome(() => previous(args)),
      JSON.stringify(args),
    );
    compared++;
  }
  assertEquals(compared > 20_000, true, `${compared} lines compared`);
});

Deno.test("a negative number is a value, for a short option too, so the range check can name it", () => {
  assertEquals(parseLine(["-m", "-1"], OPTIONS).values.model, "-1");
  assertEquals(parseLine(["-hm", "-1"], OPTIONS).values, { help: true, model: "-1" });
  assertEquals(parseLine(["--limit", "-5", "x"], OPTIONS), {
    values: { limit: "-5" },
    positionals: ["x"],
  });
  assertThrows(() => parseLine(["-m", "-x"], OPTIONS), ArgsError, "option '--model' needs a value");
});

Deno.test("a command's bad usage is a UsageError naming the command", () => {
  const command = {
    name: "demo",
    summary: "",
    help: "",
    options: { limit: { type: "string" } },
    positionals: [0, 1],
    run: () => Promise.resolve(0),
  } as const;
  const usage = (args: string[]) => {
    try {
      parseCommandArgs({ ...command, positionals: [0, 1] }, args);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      return (error as Error).message;
    }
    return "parsed";
  };
  assertEquals(
    usage(["--limits", "3"]),
    "hob demo: unknown option '--limits' — did you mean '--limit'?",
  );
  assertEquals(usage(["--limit"]), "hob demo: option '--limit' needs a value");
  assertEquals(usage(["--home", ""]), "hob demo: option '--home' needs a value");
  assertEquals(usage(["a", "b"]), "hob demo: unexpected argument 'b' — see 'hob demo --help'");
  assertEquals(usage(["a", "--limit=-2"]), "parsed");
});

Deno.test("closest suggests the nearest name within a third of the word, or nothing", () => {
  assertEquals(closest("hme", ["home", "json"]), "home");
  assertEquals(closest("stauts", ["status", "serve"]), "status");
  assertEquals(closest("jsno", ["json", "home"]), "json");
  assertEquals(closest("frobnicate", ["status", "serve"]), undefined);
});
