/**
 * Static word expansion against real bash: for every word the policy claims
 * to know, bash must expand it to exactly the same arguments. Words come from
 * a seeded grammar of quotes, escapes, braces, `$'…'`, tildes, variables and
 * arithmetic (SHELL_EXPAND_SEED replays a run), plus fixed cases for each rule.
 */

import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import { loadShell } from "../../src/shell/parse.ts";
import { Budget } from "../../src/shell/budget.ts";
import { decodeAnsiC, expandWord, Unknowable } from "../../src/shell/expand.ts";
import { Random } from "./shell_lines.ts";

const HOME = "/home/tester";
/** Variables set before each word, as a line would set them. */
const VARS: [string, string][] = [["v1", " a  b "], ["v2", ""], ["v3", "x*y"], ["v4", "/etc"]];

/**
 * What the policy makes of a word: its fields, "unknown", or "glob" when a
 * field is a pattern bash would match against the file system (judged by paths.ts instead).
 */
async function ours(
  word: string,
  cwd: string,
): Promise<string[] | "unknown" | "unparsed" | "glob"> {
  const shell = await loadShell();
  let file;
  try {
    file = shell.parse(`: ${word}`);
  } catch {
    return "unparsed";
  }
  const args = file.Stmts?.[0]?.Cmd?.Args ?? [];
  if (args.length !== 2 || file.Stmts.length !== 1) return "unparsed";
  try {
    const vars = new Map<string, string | null>(VARS);
    const budget = new Budget();
    const fields = expandWord(args[1], { shell, vars, home: HOME, cwd, budget }, "argv");
    return fields.some((f) => f.glob) ? "glob" : fields.map((f) => f.text);
  } catch (error) {
    if (error instanceof Unknowable) return "unknown";
    throw error;
  }
}

/** What bash makes of each word, in an empty directory with a clean environment. */
async function bash(words: string[], cwd: string): Promise<(string[] | undefined)[]> {
  const assignments = VARS.map(([name, value]) => `${name}='${value}'`).join("; ");
  const script = `${assignments}; for w in "$@"; do printf '\\001W\\0'; ` +
    `eval "printf '%s\\\\0' S $w" 2>/dev/null || printf 'FAILED\\0'; done`;
  const output = await new Deno.Command("env", {
    args: [
      "-i",
      `HOME=${HOME}`,
      "PATH=/usr/bin:/bin",
      "LC_ALL=C",
      "bash",
      "--norc",
      "-c",
      script,
      "bash",
      ...words,
    ],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).output();
  const records = new TextDecoder().decode(output.stdout).split("\x01W\0").slice(1);
  return records.map((record) => {
    const fields = record.split("\0").slice(0, -1);
    return fields.at(-1) === "FAILED" || fields[0] !== "S" ? undefined : fields.slice(1);
  });
}

async function compare(
  words: string[],
): Promise<{ checked: number; unknown: number; mismatches: string[] }> {
  const cwd = await Deno.makeTempDir({ prefix: "hob-expand-" });
  try {
    const expected = await bash(words, cwd);
    const result = { checked: 0, unknown: 0, mismatches: [] as string[] };
    for (let i = 0; i < words.length; i++) {
      const mine = await ours(words[i], cwd);
      if (mine === "unparsed" || mine === "glob" || expected[i] === undefined) continue;
      if (mine === "unknown") {
        result.unknown += 1;
        continue;
      }
      result.checked += 1;
      if (JSON.stringify(mine) !== JSON.stringify(expected[i])) {
        result.mismatches.push(
          `${JSON.stringify(words[i])}: ours ${JSON.stringify(mine)}, bash ${
            JSON.stringify(expected[i])
          }`,
        );
      }
    }
    return result;
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("expandWord agrees with bash on each rule", async () => {
  const words = [
    // Quotes and escapes.
    "\\/etc/passwd",
    "'/etc'/passwd",
    "\"/etc\"/pa'ss'wd",
    "a\\ b",
    '"a\\"b\\$c\\\\d\\e"',
    "''",
    '""',
    // ANSI-C quoting.
    "$'\\x2fetc'",
    "$'\\057etc'",
    "$'a\\0b'",
    "$'\\q'",
    "$'\\101\\1012'",
    "$'\\''",
    "$'\\t'",
    // Braces.
    "{/etc/passwd,x}",
    "/e{t,x}c",
    "{a,b}{c,d}",
    "{1..3}",
    "{a..c}",
    "{1..10..3}",
    "{a,b",
    "{x}",
    "{}",
    "a{,}b",
    "{a..}",
    "{'a,b',c}",
    '{"x",y}z',
    "{-1..2}",
    "{01..03}",
    "{-05..3}",
    "{1..3..-1}",
    "{c..a}",
    "{a,b,}c",
    "a{b{c,d},e}f",
    "{,}",
    "{$'a\\'',b}",
    "{'a,b'}",
    "\\{a,b}",
    "{a\\,b}",
    "{a,b\\}",
    '"{a,b}"',
    "{a,b}{}",
    "x{}y{a,b}",
    "{{a,b}}",
    "{a,{b}}",
    "{a,,b}",
    "$'{a,b}'",
    "{a..b..c}",
    "{1..2..}",
    "{1..1}",
    "-{o,/etc/x}",
    // Tildes.
    "~",
    "~/x",
    "~''",
    "\\~",
    "a=~/x",
    "a=~:~/z",
    "b:~",
    "x=a:~",
    "--x=~/y",
    "{~,x}/q",
    "a{~,b}",
    // Variables and splitting.
    "$v1",
    "a$v1",
    '"$v1"',
    '$v1""',
    "$v2",
    '$v2""',
    "${v4}/passwd",
    "$v4$v1",
    "'$v1'",
    // Arithmetic.
    "$((1+2*3))",
    "$((2**10))",
    "$((7/-2))",
    "$((-7%3))",
    "$((1<<3))",
    "$((0x1f+010+2#101+64#_))",
    "$[5]",
    "$((1?2:3))",
    "$((~0))",
    "$((!0))",
    "a$((1))b",
    "$((9223372036854775807+1))",
  ];
  const result = await compare(words);
  assertEquals(result.mismatches, []);
  assert(
    result.checked > words.length * 0.9,
    `only ${result.checked} of ${words.length} words were checked`,
  );
});

/** Random words from pieces bash treats specially. */
function randomWord(random: Random): string {
  const pieces = [
    () => random.pick(["a", "b", "x", "/", ".", "-", "=", ":", ",", "..", "etc", "o", "*", "?"]),
    () => `'${random.pick(["a", "/", "a,b", "{", "}", "$v1", " ", ""])}'`,
    () => `"${random.pick(["a", "/", "$v1", "$v4", "\\$", '\\"', "{a,b}", " x ", ""])}"`,
    () => `\\${random.pick(["/", "{", ",", "}", "~", "a", " ", "$", "*"])}`,
    () => `$'${random.pick(["\\x2f", "\\057", "a\\'b", "\\n", "{", ",", "\\0x", "\\q"])}'`,
    () => random.pick(["{", "}", ",", "{a,b}", "{1..3}", "{a..c}", "{,}", "{x}", "{01..2}"]),
    () => random.pick(["$v1", "$v2", "$v3", "$v4", "${v1}", '"$v1"', "$u"]),
    () => random.pick(["~", "~/", "~+"]),
    () => random.pick(["$((1+1))", "$((2*3))", "$[4]", "$((0x10))", "$((-1))"]),
  ];
  const count = 1 + random.int(5);
  return Array.from({ length: count }, () => random.pick(pieces)()).join("");
}

Deno.test("expandWord agrees with bash on thousands of random words", async () => {
  const seed = Number(Deno.env.get("SHELL_EXPAND_SEED") ?? 7_2026);
  console.log(`expand differential test: seed ${seed} (SHELL_EXPAND_SEED=${seed} replays it)`);
  const random = new Random(seed);
  const words = Array.from({ length: 2_000 }, () => randomWord(random));
  const result = await compare(words);
  console.log(`${result.checked} words agreed with bash, ${result.unknown} were left to ask`);
  assertEquals(
    result.mismatches.slice(0, 10),
    [],
    `seed ${seed}: ${result.mismatches.length} mismatches`,
  );
  assert(result.checked > 1_000, `only ${result.checked} words were checked`);
});

Deno.test("decodeAnsiC refuses what depends on the locale and keeps bash's oddities", () => {
  assertEquals(decodeAnsiC("\\x2fetc"), "/etc");
  assertEquals(decodeAnsiC("a\\0b"), "a");
  assertEquals(decodeAnsiC("\\z"), "\\z");
  assertEquals(decodeAnsiC("\\x"), "\\x");
  assertThrows(() => decodeAnsiC("\\u002f"), Unknowable);
  assertThrows(() => decodeAnsiC("\\xff"), Unknowable);
  assertThrows(() => decodeAnsiC("\\cA"), Unknowable);
});

Deno.test("expandWord leaves to ask what only running the line would show", async () => {
  for (
    const word of [
      "$(id)",
      "`id`",
      "$u",
      "$1",
      "$@",
      "${v1:-x}",
      "${!v1}",
      "~root",
      "~-",
      '$"x"',
      "{a,$v1}",
      "$((v1))",
      "$((1/0))",
      "<(ls)",
    ]
  ) {
    assertEquals(await ours(word, "/tmp"), "unknown", word);
  }
});
