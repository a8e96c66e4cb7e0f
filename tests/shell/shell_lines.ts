/**
 * Random command lines for the shell policy's property test, from a small
 * grammar: allowlisted and other programs, safe and dangerous option
 * spellings, quotes, escapes, braces, `$'…'`, tildes, globs, variables,
 * arithmetic, substitutions, redirections, pipes and lists, with paths inside
 * and outside the roots. Each line comes with an "oracle" rendering in which
 * every simple command prints its words with `printf '%s\0'` instead of
 * running, and every redirection prints its target instead of opening it.
 */

/** A seeded PRNG (mulberry32): the same seed gives the same lines. */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** One generated line: the real text, and the text bash runs to show what it would run. */
export interface GeneratedLine {
  line: string;
  oracle: string;
  /** It contains a command or process substitution (never run by the test). */
  substitutes: boolean;
}

/** Paths relative to the workspace root, inside it. */
const INSIDE = [
  "a.txt",
  "notes.txt",
  "sub/c.txt",
  "sub/",
  ".",
  "./b.md",
  "sub/../a.txt",
  "inlink/c.txt",
  "new.txt",
  "sub/new.txt",
];
/** Paths that lead outside the workspace root. */
const OUTSIDE = [
  "../other/secret",
  "/etc/passwd",
  "/etc/",
  "..",
  "../tools",
  "link/secret",
  "link/../x",
  "inlink/../../other/secret",
  "~/x",
  "~",
  "/tmp",
  "sub/../../other/secret",
];
const GLOBS = [
  "*.txt",
  "sub/*",
  "/etc/pass*",
  "../*",
  "s?b/c.txt",
  "*",
  "link/*",
  "[ab].txt",
  "-*",
];
/** Words that are never paths: patterns, numbers, formats. */
const TEXT = ["x", "foo", "hello", "TODO", "'a b'", "%Y", "2", "1M", "never", "'[0-9]'"];

/** Escapes a string so that bash reads it back as exactly this text. */
function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The generator; `variables` are those assigned so far on the current line. */
export class LineGenerator {
  readonly #random: Random;
  #assigned: string[] = [];
  #substitutes = false;

  constructor(random: Random) {
    this.#random = random;
  }

  /** A whole line: a list of pipelines, maybe after some variable assignments. */
  line(): GeneratedLine {
    this.#assigned = [];
    this.#substitutes = false;
    const r = this.#random;
    const parts: { line: string; oracle: string }[] = [];
    const assignments = r.chance(0.25) ? 1 + r.int(2) : 0;
    for (let i = 0; i < assignments; i++) parts.push(this.#assignment());
    const lists = 1 + r.int(2);
    for (let i = 0; i < lists; i++) parts.push(this.#pipeline());
    const line = parts.map((p) => p.line).join(r.pick(["; ", " && ", " || ", "\n"]));
    const oracle = parts.map((p) => p.oracle).join("; ");
    return { line, oracle, substitutes: this.#substitutes };
  }

  #assignment(): { line: string; oracle: string } {
    const r = this.#random;
    const name = r.pick(["v1", "v2", "vv"]);
    const value = r.chance(0.5)
      ? this.#spell(r.pick(r.chance(0.5) ? INSIDE : OUTSIDE))
      : r.pick(TEXT);
    this.#assigned.push(name);
    const text = `${name}=${value}`;
    return { line: text, oracle: text };
  }

  #pipeline(): { line: string; oracle: string } {
    const r = this.#random;
    const shape = r.next();
    if (shape < 0.05) {
      const body = this.#command();
      return {
        line: `for w in a b; do ${body.line}; done`,
        oracle: `for w in a b; do ${body.oracle}; done`,
      };
    }
    const count = r.chance(0.3) ? 2 + r.int(2) : 1;
    const commands = Array.from({ length: count }, () => this.#command());
    if (shape < 0.12) {
      const inner = commands.map((c) => c.line).join(" | ");
      return { line: `( ${inner} )`, oracle: `( ${commands.map((c) => c.oracle).join("; ")} )` };
    }
    if (shape < 0.18) {
      const body = this.#command();
      return {
        line: `if ${commands.map((c) => c.line).join(" | ")}; then ${body.line}; fi`,
        oracle: `${commands.map((c) => `{ ${c.oracle}; }`).join("; ")}; ${body.oracle}`,
      };
    }
    return {
      line: commands.map((c) => c.line).join(r.pick([" | ", " |& "])),
      // The oracle runs a pipeline's parts one after another (they assign nothing).
      oracle: commands.map((c) => `{ ${c.oracle}; }`).join("; "),
    };
  }

  /** One simple command: program, arguments, redirections. */
  #command(): { line: string; oracle: string } {
    const r = this.#random;
    const program = r.pick(PROGRAMS);
    const words = [this.#programName(program.name), ...program.args(this)];
    const redirects: { line: string; target?: string }[] = [];
    if (r.chance(0.3)) redirects.push(this.#redirect());
    const prefix = r.chance(0.05)
      ? `${r.pick(["LC_ALL=C", "LD_PRELOAD=/tmp/x.so", "GIT_DIR=/tmp"])} `
      : "";
    const line = prefix + [...words, ...redirects.map((x) => x.line)].join(" ");
    const printed = `printf '\\001C\\0'; printf '%s\\0' S ${words.join(" ")}`;
    const targets = redirects.filter((x) => x.target !== undefined)
      .map((x) => `; printf '\\001R\\0'; printf '%s\\0' S ${x.target}`);
    return { line, oracle: printed + targets.join("") };
  }

  #programName(name: string): string {
    const r = this.#random;
    if (!r.chance(0.2)) return name;
    return r.pick([
      `'${name}'`,
      `"${name}"`,
      `\\${name}`,
      `${name[0]}'${name.slice(1)}'`,
      `./${name}`,
      `/usr/bin/${name}`,
      `$'${name}'`,
      name,
    ]);
  }

  #redirect(): { line: string; target?: string } {
    const r = this.#random;
    const op = r.pick([
      ">",
      ">>",
      "2>",
      "&>",
      ">&",
      "<",
      "<>",
      ">|",
      "{fd}>",
      "2>&1",
      ">&2",
      "<<<",
    ]);
    if (op === "2>&1" || op === ">&2") return { line: op };
    if (op === "<<<") return { line: `<<< ${this.#spell(r.pick(TEXT))}` };
    const target = this.#pathWord(r.chance(0.5) ? "inside" : "any");
    return { line: `${op} ${target}`, target };
  }

  /** A path spelled some way bash reads it; sometimes a glob, a variable or a substitution. */
  pathWord(kind: "inside" | "any" = "any"): string {
    return this.#pathWord(kind);
  }

  #pathWord(kind: "inside" | "any"): string {
    const r = this.#random;
    const roll = r.next();
    if (roll < 0.08) return r.pick(GLOBS);
    if (roll < 0.12 && this.#assigned.length > 0) {
      const name = r.pick(this.#assigned);
      return r.pick([`$${name}`, `"$${name}"`, `\${${name}}`, `$${name}/x`]);
    }
    if (roll < 0.14) return r.pick(["$HOME/x", "$undefined", "$1"]);
    if (roll < 0.17) {
      this.#substitutes = true;
      return r.pick(["$(id)", "`id`", "$(( $(id) ))", "<(true)", "a$(echo b)"]);
    }
    if (roll < 0.2) return r.pick(["$((1+1)).txt", "a$[0].txt", "$((0x10))"]);
    const path = kind === "inside" || r.chance(0.45) ? r.pick(INSIDE) : r.pick(OUTSIDE);
    return this.#spell(path);
  }

  /** A text word (never a path). */
  text(): string {
    return this.#random.pick(TEXT);
  }

  /** Spells a literal string with bash's quoting in one of many ways. */
  #spell(text: string): string {
    const r = this.#random;
    if (text.startsWith("~")) {
      // Only an unquoted tilde at the start expands; keep it, vary the rest.
      return r.chance(0.7) ? text : `\\${text}`;
    }
    switch (r.int(9)) {
      case 0:
        return singleQuoted(text);
      case 1:
        return `"${text}"`;
      case 2:
        return text.replaceAll("/", "\\/");
      case 3: {
        const cut = r.int(text.length + 1);
        return `${text.slice(0, cut)}'${text.slice(cut)}'`;
      }
      case 4:
        return `$'${text.replaceAll("/", r.pick(["\\x2f", "\\057", "/"]))}'`;
      case 5:
        return `{${text},a.txt}`;
      case 6: {
        const cut = r.int(text.length + 1);
        return `${text.slice(0, cut)}{,}${text.slice(cut)}`;
      }
      case 7: {
        if (text.length < 2) return text;
        const cut = 1 + r.int(text.length - 1);
        return `${text.slice(0, cut - 1)}{${text[cut - 1]},zz}${text.slice(cut)}`;
      }
      default:
        return text;
    }
  }
}

interface ProgramGrammar {
  name: string;
  args(g: LineGenerator): string[];
}

/** Some arguments drawn from a pool, each either a fixed string or a function of the generator. */
function some(
  g: LineGenerator,
  random: Random,
  pool: ((g: LineGenerator) => string)[],
  max = 3,
): string[] {
  const count = random.int(max + 1);
  return Array.from({ length: count }, () => random.pick(pool)(g));
}

const fixed = (...words: string[]) => words.map((w) => () => w);
const path = (g: LineGenerator) => g.pathWord();
const insidePath = (g: LineGenerator) => g.pathWord("inside");
const withPath = (template: string) => (g: LineGenerator) => template.replace("P", g.pathWord());

let shared: Random;

/** Programs and how their arguments are drawn; `shared` is set by `makeGenerator`. */
const PROGRAMS: ProgramGrammar[] = [
  {
    name: "ls",
    args: (g) =>
      some(g, shared, [
        ...fixed("-la", "-l", "-R", "-1", "--color=never", "-d", "-I x", "--hide=x"),
        path,
        insidePath,
      ]),
  },
  {
    name: "cat",
    args: (g) => some(g, shared, [...fixed("-n", "-A", "-v"), path, insidePath, insidePath]),
  },
  {
    name: "head",
    args: (g) =>
      some(g, shared, [
        ...fixed("-n 5", "-5", "-c 10", "-n5", "--lines=3", "-q"),
        path,
        insidePath,
      ]),
  },
  { name: "tail", args: (g) => some(g, shared, [...fixed("-n 2", "-3", "-c5"), path, insidePath]) },
  {
    name: "wc",
    args: (g) =>
      some(g, shared, [
        ...fixed("-l", "-w", "-c"),
        withPath("--files0-from=P"),
        withPath("--files0=P"),
        path,
        insidePath,
      ]),
  },
  {
    name: "grep",
    args: (g) => [
      shared.chance(0.5) ? g.text() : `-e ${g.text()}`,
      ...some(g, shared, [
        ...fixed("-i", "-n", "-r", "-c", "-v", "-l", "-A 2", "-C1", "-R", "--include='*.md'"),
        withPath("-f P"),
        withPath("--exclude-from=P"),
        path,
        insidePath,
      ]),
    ],
  },
  {
    name: "sort",
    args: (g) =>
      some(g, shared, [
        ...fixed(
          "-r",
          "-n",
          "-u",
          "-k 2",
          "-t ,",
          "-S 1M",
          "--compress-program=sh",
          "--compress-prog=sh",
          "--co=sh",
          "-R",
        ),
        withPath("-o P"),
        withPath("--output=P"),
        withPath("--output P"),
        withPath("-oP"),
        withPath("-no P"),
        withPath("-rnoP"),
        withPath("--out=P"),
        withPath("-T P"),
        withPath("--temporary-directory=P"),
        withPath("--files0-from=P"),
        withPath("--random-source=P"),
        path,
        insidePath,
      ], 4),
  },
  {
    name: "uniq",
    args: (
      g,
    ) => [
      ...some(g, shared, fixed("-c", "-d", "-u"), 2),
      ...some(g, shared, [path, insidePath], 2),
    ],
  },
  {
    name: "diff",
    args: (g) =>
      some(g, shared, [
        ...fixed("-u", "-r", "-q"),
        withPath("--from-file=P"),
        withPath("-X P"),
        path,
        insidePath,
      ]),
  },
  {
    name: "du",
    args: (g) =>
      some(g, shared, [
        ...fixed("-sh", "-a", "-d 1", "-L"),
        withPath("--files0-from=P"),
        withPath("-X P"),
        path,
        insidePath,
      ]),
  },
  { name: "df", args: (g) => some(g, shared, [...fixed("-h", "-T"), path]) },
  {
    name: "stat",
    args: (g) => some(g, shared, [...fixed("-c %s", "-L", "--format=%n"), path, insidePath]),
  },
  {
    name: "file",
    args: (g) =>
      some(g, shared, [
        ...fixed("-b", "-i", "-C"),
        withPath("-f P"),
        withPath("-m P"),
        path,
        insidePath,
      ]),
  },
  {
    name: "find",
    args: (g) => [
      ...some(g, shared, [path, insidePath, ...fixed("-L", "-H")], 2),
      ...some(g, shared, [
        ...fixed(
          "-name 'x*'",
          "-type f",
          "-maxdepth 2",
          "-print",
          "-exec rm {} ';'",
          "-execdir cat {} +",
          "-delete",
          "-follow",
          "-ok echo {} \\;",
          "-name *.txt",
        ),
        withPath("-newer P"),
        withPath("-fprint P"),
        withPath("-files0-from P"),
      ], 3),
    ],
  },
  {
    name: "git",
    args: (g) => [
      ...some(g, shared, [
        ...fixed(
          "--no-pager",
          "-c core.pager=sh",
          "--exec-path=/tmp",
          "-p",
          "--config-env=a=b",
          "-P",
        ),
        withPath("-C P"),
        withPath("--git-dir=P"),
      ], 1),
      shared.pick([
        "status",
        "log",
        "diff",
        "show",
        "commit",
        "push",
        "branch",
        "rev-parse",
        "ls-files",
        "foo",
        "difftool",
      ]),
      ...some(g, shared, [
        ...fixed(
          "--oneline",
          "-5",
          "--stat",
          "--ext-diff",
          "--no-index",
          "-s",
          "--porcelain",
          "--cached",
          "HEAD",
          "-p",
        ),
        withPath("--output=P"),
        withPath("-O P"),
        withPath("-- P"),
        path,
      ], 2),
    ],
  },
  {
    name: "date",
    args: (g) =>
      some(g, shared, [
        ...fixed("+%Y", "-u", "-d yesterday", "-s 2020-01-01", "0101"),
        withPath("-r P"),
        withPath("-f P"),
      ], 2),
  },
  {
    name: "echo",
    args: (g) => some(g, shared, [path, insidePath, (gg) => gg.text(), ...fixed("-n", "-e")], 3),
  },
  { name: "which", args: () => some(undefined as never, shared, fixed("ls", "cat", "-a"), 2) },
  {
    name: "tree",
    args: (g) =>
      some(g, shared, [...fixed("-a", "-L 2", "-R", "-d"), withPath("-o P"), path, insidePath]),
  },
  { name: "pwd", args: () => [] },
  { name: "uname", args: () => some(undefined as never, shared, fixed("-a", "-s", "-r"), 1) },
  { name: "whoami", args: () => [] },
  { name: "true", args: (g) => some(g, shared, [path], 1) },
  { name: "rm", args: (g) => ["-rf", g.pathWord()] },
  { name: "sh", args: () => ["-c", "'id'"] },
  { name: "python3", args: () => ["-c", "'print(1)'"] },
  {
    name: "curl",
    args: (g) => [shared.pick(["-T", "-d", "-o"]), g.pathWord(), "https://x.invalid"],
  },
];

/** A generator whose every choice comes from one seeded PRNG. */
export function makeGenerator(seed: number): LineGenerator {
  shared = new Random(seed);
  return new LineGenerator(shared);
}
