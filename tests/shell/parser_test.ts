/**
 * The policy's parser reads a line as bash does. bash is asked for its own
 * reading without running anything: the line becomes the body of a function
 * imported from the environment (`BASH_FUNC_f%%`), which bash only parses —
 * since Shellshock it refuses a definition with anything after it — and
 * `declare -f` prints the body as bash understood it. Both texts must give
 * the same commands with the same expanded words.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { analyzeCommand } from "../../src/shell/policy.ts";
import { makeGenerator, Random } from "./shell_lines.ts";

const scope = { roots: ["/nonexistent/ws"], home: "/nonexistent/home", path: "/usr/bin:/bin" };

/** bash's own reading of each line, or undefined where bash would not define the function. */
async function bashReading(lines: string[]): Promise<(string | undefined)[]> {
  const env: Record<string, string> = { PATH: "/usr/bin:/bin" };
  lines.forEach((line, i) => env[`BASH_FUNC_f${i}%%`] = `() {\n${line}\n}`);
  const script = `for i in $(seq 0 ${lines.length - 1}); do printf '\\001%s\\0' "$i"; ` +
    `declare -f "f$i" 2>/dev/null; done`;
  const output = await new Deno.Command("bash", {
    args: ["--norc", "--noprofile", "-c", script],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const bodies: (string | undefined)[] = lines.map(() => undefined);
  for (const record of text.split("\x01").slice(1)) {
    const [index, printed] = record.split("\0");
    const body = /^f\d+ \(\) \n\{ \n([\s\S]*)\n\}\s*$/.exec(printed ?? "");
    if (body) bodies[Number(index)] = body[1];
  }
  return bodies;
}

/** The commands the policy sees in a text, or undefined when it does not parse. */
async function commands(text: string): Promise<string[][] | undefined> {
  try {
    return (await analyzeCommand(text, scope)).commands;
  } catch {
    return undefined;
  }
}

async function disagreements(lines: string[]): Promise<{ checked: number; problems: string[] }> {
  const readings: (string | undefined)[] = [];
  for (let start = 0; start < lines.length; start += 250) {
    readings.push(...await bashReading(lines.slice(start, start + 250)));
  }
  const result = { checked: 0, problems: [] as string[] };
  for (let i = 0; i < lines.length; i++) {
    const ours = await commands(lines[i]);
    const reading = readings[i];
    // Where the policy's parser refuses a line, it is denied: no disagreement can hurt.
    if (ours === undefined || reading === undefined) continue;
    const theirs = await commands(reading);
    result.checked += 1;
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      result.problems.push(
        `${JSON.stringify(lines[i])}: ours ${JSON.stringify(ours)}, bash ${JSON.stringify(theirs)}`,
      );
    }
  }
  return result;
}

Deno.test("the parser reads tricky lines as bash does", async () => {
  const lines = [
    "ls # comment\nrm x",
    "ls; #x\nrm y",
    "echo a\\#b",
    "echo a#b c",
    "ls \\\n-la",
    "echo 'a\\\nb'",
    'echo "a\\\nb"',
    "echo $'a\\\nb'",
    "cat <<'EOF'\na\\\nb\nEOF",
    "cat <<EOF\na\\\nb\nEOF",
    "cat <<-EOF\n\tx\n\tEOF\nls",
    "echo {a,b} c\\ d",
    "ls &>x; ls >&2; ls 2>&1 | wc",
    "time ls; ! ls",
    "{ ls; } && ( pwd ) || true",
    "if ls; then pwd; elif true; then date; else who; fi",
    "for x in a b; do echo $x; done; while false; do :; done",
    "case x in a|b) ls;; *) pwd;& c) date;;& esac",
    "[[ -f x && $y == z ]] && (( 1 + 2 ))",
    "a=1 b=2 ls; c=3",
    "ls\r\nrm x",
    "echo $((1+2)) $[3] ${x:-y}",
    "ls |& wc",
    "f() { ls; }",
    "echo x > y < z 2>> w",
    "echo }; ls {",
    "echo { ls; }",
    "ls ]] [[ x",
    "echo a\ \ b 'c''d' \"e",
    "echo ~ ~/x a=~ ~+",
  ];
  const result = await disagreements(lines);
  assertEquals(result.problems, []);
  assert(result.checked > lines.length * 0.8, `only ${result.checked} lines were compared`);
});

Deno.test("the parser reads generated lines as bash does", async () => {
  const generator = makeGenerator(Number(Deno.env.get("SHELL_PARSER_SEED") ?? 4242));
  const lines = Array.from({ length: 1_000 }, () => generator.line().line);
  const result = await disagreements(lines);
  assertEquals(result.problems.slice(0, 10), [], `${result.problems.length} disagreements`);
  assert(result.checked > 600, `only ${result.checked} lines were compared`);
});

/** Lines made of shell tokens thrown together, mostly words: many do not parse, the rest must agree. */
function tokenSoup(random: Random): string {
  const words = [
    "ls",
    "cat",
    "x",
    "-la",
    "a=1",
    "b=$a",
    "$a",
    "'q w'",
    '"d $a"',
    "{a,b}",
    "~",
    "*",
    "$'x'",
  ];
  const glue = [
    " ",
    " ",
    " ",
    "; ",
    "\n",
    " && ",
    " || ",
    " | ",
    " |& ",
    " & ",
    " # c\n",
    " #\n",
    "\\\n",
    "\r\n",
    " > y ",
    " 2>&1 ",
    " &> y ",
    " <<< w ",
    " \\ ",
    "\t",
  ];
  const structures = [
    (inner: string) => `( ${inner} )`,
    (inner: string) => `{ ${inner}; }`,
    (inner: string) => `if ${inner}; then ls; fi`,
    (inner: string) => `for i in a; do ${inner}; done`,
    (inner: string) => `time ${inner}`,
    (inner: string) => `! ${inner}`,
    (inner: string) => `echo $(${inner})`,
    (inner: string) => `[[ ${inner} ]]`,
    (inner: string) => inner,
    (inner: string) => inner,
  ];
  const count = 1 + random.int(6);
  let line = random.pick(words);
  for (let i = 1; i < count; i++) line += random.pick(glue) + random.pick(words);
  return random.pick(structures)(line);
}

Deno.test("the parser reads random token soup as bash does, where both accept it", async () => {
  const random = new Random(Number(Deno.env.get("SHELL_SOUP_SEED") ?? 99));
  const lines = Array.from({ length: 2_000 }, () => tokenSoup(random));
  const result = await disagreements(lines);
  assertEquals(result.problems.slice(0, 10), [], `${result.problems.length} disagreements`);
  assert(result.checked > 500, `only ${result.checked} lines were compared`);
});
