/**
 * Brace expansion (`{a,b}`, `{1..9..2}`, `{a..e}`), ported from bash's
 * braces.c: it works on the word's text with its quotes still in it, exactly
 * as bash does, so `{'a,b',c}`, `\{a,b}`, `{a..}` and `{}` come out as bash
 * makes them. Each character remembers where it came from, so the results can
 * be mapped back to the quoted pieces of the word (see expand.ts).
 */

import { Unknowable } from "./arith.ts";
import type { Budget } from "./budget.ts";

/** One character of the word's text, and which piece of the word it came from (-1: generated). */
export interface Unit {
  ch: string;
  group: number;
  index: number;
}

/** More results than this is not a command line anyone means; the policy asks. */
const MAX_RESULTS = 10_000;

/**
 * Expands the braces in a word's text; each result is a list of units. Every
 * call copies parts of its text and every result is new: both are charged to
 * `budget` before they are made.
 */
export function braceExpand(text: Unit[], budget: Budget): Unit[][] {
  budget.chars(text.length);
  const ch = (i: number) => text[i]?.ch ?? "";
  // Find an opening brace that begins a valid brace expression.
  let i = 0;
  let c = "";
  while (true) {
    ({ i, c } = gobble(text, i, "{"));
    if (!c) break;
    if (gobble(text, i + 1, "}").c) break;
    i += 1;
  }
  const preamble = text.slice(0, i);
  if (c !== "{") return [preamble];

  const start = ++i;
  ({ i, c } = gobble(text, i, "}"));
  if (!c) return [text.slice()];
  const amble = text.slice(start, i);

  let tack: Unit[][];
  if (!hasSeparator(amble)) {
    const sequence = expandSequence(amble.map((unit) => unit.ch).join(""), budget);
    if (sequence) {
      tack = sequence;
    } else if (ch(i + 1)) {
      // Not a sequence, but more text follows: keep "{…}" as it is and go on.
      tack = [text.slice(start - 1, i + 1)];
    } else {
      return [text.slice()];
    }
  } else {
    tack = expandAmble(amble, budget);
  }
  let result = concat([preamble], tack, budget);
  const postamble = text.slice(i + 1);
  if (postamble.length > 0) result = concat(result, braceExpand(postamble, budget), budget);
  return result;
}

/** Whether the text between the braces has a comma not escaped by a backslash (quotes do not count, as in bash). */
function hasSeparator(amble: Unit[]): boolean {
  for (let j = 0; j < amble.length; j++) {
    if (amble[j].ch === "\\") {
      j += 1;
      continue;
    }
    if (amble[j].ch === ",") return true;
  }
  return false;
}

/** Splits the text between the braces at top-level commas and expands each part. */
function expandAmble(text: Unit[], budget: Budget): Unit[][] {
  const result: Unit[][] = [];
  let start = 0;
  let i = 0;
  let c = "x";
  while (c) {
    ({ i, c } = gobble(text, i, ","));
    result.push(...braceExpand(text.slice(start, i), budget));
    if (result.length > MAX_RESULTS) throw new Unknowable("brace expansion makes too many words");
    i += 1;
    start = i;
  }
  return result;
}

/**
 * Bash's brace_gobbler: from `start`, finds the unquoted `satisfy` at brace
 * level 0, skipping quotes, backslash escapes and `${…}`. For `}`, a comma or
 * `..` must come first. Returns where it stopped and the character found ("" if none).
 */
function gobble(text: Unit[], start: number, satisfy: string): { i: number; c: string } {
  const ch = (i: number) => text[i]?.ch ?? "";
  const blank = (c: string) => c === "" || c === " " || c === "\t" || c === "\n";
  let level = 0;
  let quoted = "";
  let passNext = false;
  let commas = satisfy === "}" ? 0 : 1;
  let i = start;
  for (; i < text.length; i++) {
    const c = ch(i);
    if (passNext) {
      passNext = false;
      continue;
    }
    if (c === "\\" && (quoted === "" || quoted === '"' || quoted === "`")) {
      passNext = true;
      continue;
    }
    if (c === "$" && ch(i + 1) === "{" && quoted !== "'") {
      passNext = true;
      if (quoted === "") level += 1;
      continue;
    }
    if (quoted) {
      if (c === quoted) quoted = "";
      if (quoted === '"' && c === "$" && ch(i + 1) === "(") {
        throw new Unknowable("a command substitution takes part in brace expansion");
      }
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      quoted = c;
      continue;
    }
    if ((c === "$" || c === "<" || c === ">") && ch(i + 1) === "(") {
      throw new Unknowable("a substitution takes part in brace expansion");
    }
    if (c === satisfy && level === 0 && commas > 0) {
      // A brace between blanks, or followed by "}" after a blank, is not an expansion.
      if (c === "{" && (i === 0 || blank(ch(i - 1))) && (blank(ch(i + 1)) || ch(i + 1) === "}")) {
        continue;
      }
      return { i, c };
    }
    if (c === "{") level += 1;
    else if (c === "}" && level > 0) level -= 1;
    else if (satisfy === "}" && c === "," && level === 0) commas += 1;
    else if (
      satisfy === "}" && c === "." && ch(i + 1) === "." && ch(i + 2) !== "}" && level === 0
    ) {
      commas += 1;
    }
  }
  return { i, c: "" };
}

/** Every result of `left` followed by every result of `right`, as bash's array_concat. */
function concat(left: Unit[][], right: Unit[][], budget: Budget): Unit[][] {
  if (left.length === 1 && left[0].length === 0) return right;
  if (right.length === 1 && right[0].length === 0) return left;
  if (left.length * right.length > MAX_RESULTS) {
    throw new Unknowable("brace expansion makes too many words");
  }
  const length = (results: Unit[][]) => results.reduce((sum, units) => sum + units.length, 0);
  budget.chars(length(left) * right.length + length(right) * left.length);
  return left.flatMap((a) => right.map((b) => [...a, ...b]));
}

/** `1..5`, `a..e`, `01..10..3`: the sequence, or undefined when the text is not one. */
function expandSequence(amble: string, budget: Budget): Unit[][] | undefined {
  const dots = amble.indexOf("..");
  if (dots < 0) return undefined;
  const lhs = amble.slice(0, dots);
  const rhsAll = amble.slice(dots + 2);
  if (!lhs || !rhsAll) return undefined;
  const lhsType = /^[+-]?[0-9]+$/.test(lhs) ? "int" : /^[A-Za-z]$/.test(lhs) ? "char" : "bad";

  let rhsType: "int" | "char" | "bad";
  let rhs: string;
  let rest: string;
  const intMatch = /^([+-]?[0-9]+)(.*)$/.exec(rhsAll);
  if (/^[0-9]|^[+-][0-9]/.test(rhsAll) && intMatch) {
    [, rhs, rest] = intMatch;
    rhsType = rest === "" || rest.startsWith(".") ? "int" : "bad";
  } else if (/^[A-Za-z](\.|$)/.test(rhsAll)) {
    rhs = rhsAll[0];
    rest = rhsAll.slice(1);
    rhsType = "char";
  } else {
    return undefined;
  }
  let increment = 1n;
  if (rhsType !== "bad" && rest !== "") {
    const step = /^\.\.([+-]?[0-9]+)$/.exec(rest);
    if (!step) return undefined;
    increment = BigInt(step[1]);
  }
  if (lhsType !== rhsType || lhsType === "bad" || rhsType === "bad") return undefined;

  if (lhsType === "char") {
    const values = sequence(BigInt(lhs.charCodeAt(0)), BigInt(rhs.charCodeAt(0)), increment);
    return values.map((n) => {
      const c = String.fromCharCode(Number(n));
      // Between Z and a lie [ \ ] ^ _ `, which bash would then read as quoting and globs.
      if (!/[A-Za-z]/.test(c)) throw new Unknowable("a letter sequence crosses punctuation");
      return generated(c);
    });
  }
  const from = BigInt(lhs);
  const to = BigInt(rhs);
  const limit = 2n ** 31n;
  if (from >= limit || from <= -limit || to >= limit || to <= -limit) {
    throw new Unknowable("a number sequence is too long to check");
  }
  const width = zeroPadWidth(lhs, rhs);
  const values = sequence(from, to, increment);
  // `{0001..9999}` pads every number to the width written: charge the widest before making any.
  const widest = Math.max(width, String(from).length, String(to).length);
  budget.chars(values.length * widest);
  return values.map((n) => generated(pad(n, width)));
}

/** Bash pads every number when either end is written with a leading zero. */
function zeroPadWidth(lhs: string, rhs: string): number {
  const padded = (term: string) => /^-?0./.test(term);
  if (!padded(lhs) && !padded(rhs)) return 0;
  return Math.max(lhs.length, rhs.length);
}

function pad(n: bigint, width: number): string {
  if (width === 0) return String(n);
  return n < 0n ? `-${String(-n).padStart(width - 1, "0")}` : String(n).padStart(width, "0");
}

function sequence(start: bigint, end: bigint, step: bigint): bigint[] {
  let increment = step === 0n ? 1n : step;
  if (start > end && increment > 0n) increment = -increment;
  else if (start < end && increment < 0n) increment = -increment;
  const distance = end > start ? end - start : start - end;
  const absolute = increment < 0n ? -increment : increment;
  if (distance / absolute + 1n > BigInt(MAX_RESULTS)) {
    throw new Unknowable("a sequence makes too many words");
  }
  const values: bigint[] = [];
  let n = start;
  while (true) {
    values.push(n);
    n += increment;
    if ((increment < 0n && n < end) || (increment > 0n && n > end)) break;
  }
  return values;
}

function generated(text: string): Unit[] {
  return [...text].map((ch) => ({ ch, group: -1, index: 0 }));
}
