/**
 * A command's arguments, parsed strictly (node:util's parseArgs behind hob's
 * wording): values, groups of flags, `=`, `--`, a lone `-`, negative numbers
 * as values so the range check can name them, and every kind of bad usage as
 * one UsageError naming the command and the option by its long name.
 */

import { closest } from "../../src/cli/closest.ts";
import { type Command, parseCommandArgs, UsageError } from "../../src/cli/command.ts";
import { assertEquals } from "../helpers/assert.ts";

const DEMO: Command = {
  name: "demo",
  summary: "",
  help: "",
  options: {
    json: { type: "boolean", short: "j" },
    model: { type: "string", short: "m" },
    limit: { type: "string" },
  },
  positionals: [0, 3],
  run: () => Promise.resolve(0),
};

/** What `hob demo <args>` parses to, or its UsageError's message. */
function parsed(args: string[], positionals: [number, number] = [0, 3]): unknown {
  try {
    return parseCommandArgs({ ...DEMO, positionals }, args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return error.message;
  }
}

Deno.test("parseCommandArgs reads values, groups of flags, `=`, `--` and a lone `-`", () => {
  const cases: [string[], Record<string, unknown>, string[]][] = [
    [["list", "--limit", "5", "-h"], { limit: "5", help: true }, ["list"]],
    [["--model=gpt", "-j"], { model: "gpt", json: true }, []],
    [["-mgpt"], { model: "gpt" }, []],
    [["-hjmx"], { help: true, json: true, model: "x" }, []],
    [["-hm", "x"], { help: true, model: "x" }, []],
    [["--", "--json", "-h"], {}, ["--json", "-h"]],
    [["-"], {}, ["-"]],
    [["--model", "-"], { model: "-" }, []],
    [["--model", "a", "--model", "b"], { model: "b" }, []],
    [["--debug", "--home", "/h"], { debug: true, home: "/h" }, []],
  ];
  for (const [args, values, positionals] of cases) {
    assertEquals(parsed(args), { values, positionals }, JSON.stringify(args));
  }
});

Deno.test("parseCommandArgs takes a negative number as a value, so the range check can name it", () => {
  assertEquals(parsed(["--limit", "-5", "x"]), { values: { limit: "-5" }, positionals: ["x"] });
  assertEquals(parsed(["--limit=-5"]), { values: { limit: "-5" }, positionals: [] });
  assertEquals(parsed(["-m", "-1"]), { values: { model: "-1" }, positionals: [] });
  assertEquals(parsed(["-hm", "-1"]), { values: { help: true, model: "-1" }, positionals: [] });
  // After `--`, or after a flag, it is a positional, and `-5` alone is no option hob has.
  assertEquals(parsed(["--", "--limit", "-5"]), { values: {}, positionals: ["--limit", "-5"] });
  assertEquals(parsed(["-5"]), "hob demo: unknown option '-5'");
  assertEquals(parsed(["-j", "-5"]), "hob demo: unknown option '-5'");
});

Deno.test("parseCommandArgs says what is wrong in one line naming the command and the long option", () => {
  const cases: [string[], string][] = [
    [["--limits", "3"], "unknown option '--limits' — did you mean '--limit'?"],
    [["--frobnicate"], "unknown option '--frobnicate'"],
    [["-x"], "unknown option '-x'"],
    [["-hx"], "unknown option '-x'"],
    [["--limit"], "option '--limit' needs a value"],
    [["-m"], "option '--model' needs a value"],
    [["-m", "-x"], "option '--model' needs a value"],
    [["--model", "--json"], "option '--model' needs a value"],
    [["--model="], "option '--model' needs a value"],
    [["--home", ""], "option '--home' needs a value"],
    [["--json=yes"], "option '--json' does not take a value"],
    [["--help=no"], "option '--help' does not take a value"],
  ];
  for (const [args, message] of cases) {
    assertEquals(parsed(args), `hob demo: ${message}`, JSON.stringify(args));
  }
  assertEquals(
    parsed(["a", "b"], [0, 1]),
    "hob demo: unexpected argument 'b' — see 'hob demo --help'",
  );
  assertEquals(parsed([], [1, 1]), "hob demo: missing argument — see 'hob demo --help'");
  // --help needs none of the command's arguments.
  assertEquals(parsed(["--help"], [1, 1]), { values: { help: true }, positionals: [] });
});

Deno.test("closest suggests the nearest name within a third of the word, or nothing", () => {
  assertEquals(closest("hme", ["home", "json"]), "home");
  assertEquals(closest("stauts", ["status", "serve"]), "status");
  assertEquals(closest("jsno", ["json", "home"]), "json");
  assertEquals(closest("frobnicate", ["status", "serve"]), undefined);
});
