/**
 * Static word expansion with bash's rules, in bash's order: brace expansion,
 * tilde expansion, parameter and arithmetic expansion, word splitting,
 * pathname expansion (recorded, not performed) and quote removal. What cannot
 * be known without running the line — command and process substitution,
 * variables not set to a literal earlier on the line, `$"…"`, extended globs,
 * `~user` — throws Unknowable, and the policy asks.
 */

import { evaluateArithmetic, Unknowable } from "./arith.ts";
import { braceExpand, type Unit } from "./braces.ts";
import type { Budget } from "./budget.ts";
import type { Node, Shell } from "./parse.ts";

export { Unknowable };

/** One character of an expanded word: `quoted` characters are not split or matched as globs. */
export interface Char {
  c: string;
  quoted: boolean;
}

/** One argument after expansion. */
export interface Field {
  text: string;
  /** Set when the field has unquoted `*`, `?` or `[`: bash replaces it with matching paths. */
  glob?: Char[];
}

/** What expansion may use: variables set earlier on the line, the home and the working directory. */
export interface ExpandContext {
  shell: Shell;
  /** Variables with a known value; a name mapped to null has an unknown value, as does any name absent. */
  vars: ReadonlyMap<string, string | null>;
  /** `~`; undefined when not known. */
  home?: string;
  /** `~+`; null when not known. */
  cwd: string | null;
  /** What the line's judging may still spend; expansion charges what it makes. */
  budget: Budget;
}

/**
 * How a word is expanded: command arguments and redirection targets get every
 * expansion; assignment values, `[[ ]]` operands, here-strings and case words
 * get neither brace expansion, word splitting nor pathname expansion.
 */
export type ExpandMode = "argv" | "assign" | "plain";

/**
 * Expands one word of a command line the way bash would; throws Unknowable
 * when the result depends on something only running the line would show.
 */
export function expandWord(word: Node, context: ExpandContext, mode: ExpandMode): Field[] {
  const { budget } = context;
  const groups = wordGroups(word, context.shell);
  const words = mode === "argv" ? expandBraces(groups, budget) : [groups.flatMap((g) => g.pieces)];
  const fields: Field[] = [];
  for (const pieces of words) {
    const assignment = mode === "assign" ? "value" : mode === "argv" && isAssignmentLike(pieces);
    const chars = expandAtoms(expandTildes(pieces, context, assignment || false), context);
    if (mode === "argv") {
      const split = splitFields(chars);
      budget.words(split.length);
      fields.push(...split);
    } else fields.push({ text: chars.map((c) => c.c).join("") });
  }
  return fields;
}

/** Expands a word that must stay one string (no splitting or globbing). */
export function expandString(word: Node, context: ExpandContext): string {
  return expandWord(word, context, "plain")[0]?.text ?? "";
}

/** A character of a word; `fromExpansion` marks an unquoted variable's or arithmetic's result. */
interface CharPiece {
  c: string;
  quoted: boolean;
  fromExpansion?: boolean;
}

/** A character of a word before expansion, or a part that expands later (a variable, arithmetic). */
type Piece = CharPiece | { atom: Node; quoted: boolean };

/**
 * A run of the word as bash's brace expansion sees it: its text, quotes
 * included, and the pieces it stands for.
 */
interface Group {
  raw: string;
  pieces: Piece[];
  atoms: boolean;
}

/** Splits a word's parts into groups: one per unquoted character, one per quoted string. */
function wordGroups(word: Node, shell: Shell): Group[] {
  const groups: Group[] = [];
  for (const part of word.Parts ?? []) {
    const type = shell.type(part);
    if (type === "Lit") {
      groups.push(...unquotedGroups(part.Value));
    } else if (type === "SglQuoted") {
      const text: string = part.Dollar ? decodeAnsiC(part.Value) : part.Value;
      groups.push({
        raw: part.Dollar ? singleQuote(text) : `'${text}'`,
        pieces: [quotedMarker(), ...[...text].map((c) => ({ c, quoted: true }))],
        atoms: false,
      });
    } else if (type === "DblQuoted") {
      groups.push(doubleQuotedGroup(part, shell));
    } else if (["ParamExp", "ArithmExp", "CmdSubst", "ProcSubst"].includes(type)) {
      groups.push({ raw: "$", pieces: [{ atom: part, quoted: false }], atoms: true });
    } else if (type === "ExtGlob") {
      throw new Unknowable("uses an extended glob, which bash reads differently");
    } else {
      throw new Unknowable(`uses ${type}, which the policy does not expand`);
    }
  }
  return groups;
}

/** Marks a quoted string, so that `''` and `""` still make an (empty) argument. */
function quotedMarker(): CharPiece {
  return { c: "", quoted: true };
}

/** Unquoted text: a backslash quotes the next character; backslash-newline disappears. */
function unquotedGroups(value: string): Group[] {
  const chars = [...value];
  const groups: Group[] = [];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === "\\" && i + 1 < chars.length) {
      i += 1;
      if (chars[i] === "\n") continue;
      groups.push({ raw: `\\${chars[i]}`, pieces: [{ c: chars[i], quoted: true }], atoms: false });
    } else {
      groups.push({ raw: chars[i], pieces: [{ c: chars[i], quoted: false }], atoms: false });
    }
  }
  return groups;
}

/** `"…"`: a backslash escapes only `$`, `` ` ``, `"`, `\` and newline; expansions stay whole. */
function doubleQuotedGroup(part: Node, shell: Shell): Group {
  if (part.Dollar) throw new Unknowable(`uses $"…", which bash translates by the locale`);
  const pieces: Piece[] = [quotedMarker()];
  let raw = '"';
  let atoms = false;
  for (const inner of part.Parts ?? []) {
    const type = shell.type(inner);
    if (type === "Lit") {
      const chars = [...(inner.Value as string)];
      for (let i = 0; i < chars.length; i++) {
        if (chars[i] === "\\" && i + 1 < chars.length && '$`"\\\n'.includes(chars[i + 1])) {
          i += 1;
          if (chars[i] === "\n") continue;
          raw += `\\${chars[i]}`;
        } else {
          raw += chars[i];
        }
        pieces.push({ c: chars[i], quoted: true });
      }
    } else if (["ParamExp", "ArithmExp", "CmdSubst"].includes(type)) {
      pieces.push({ atom: inner, quoted: true });
      atoms = true;
      raw += "$";
    } else {
      throw new Unknowable(`uses ${type} inside double quotes, which the policy does not expand`);
    }
  }
  return { raw: `${raw}"`, pieces, atoms };
}

/**
 * Brace expansion on the word's text. A word that mixes braces with
 * expansions is not worth modelling (bash counts `${` towards brace levels): it asks.
 */
function expandBraces(groups: Group[], budget: Budget): Piece[][] {
  const pieces = groups.flatMap((g) => g.pieces);
  const hasBrace = pieces.some((p) => "c" in p && p.c === "{" && !p.quoted);
  if (!hasBrace) return [pieces];
  if (groups.some((g) => g.atoms)) {
    throw new Unknowable("mixes brace expansion with a variable or substitution");
  }
  const units: Unit[] = groups.flatMap((group, index) =>
    [...group.raw].map((ch, offset) => ({ ch, group: index, index: offset }))
  );
  return braceExpand(units, budget).map((result) => unitsToPieces(result, groups));
}

/** Maps a brace expansion result back to pieces; a result that cuts a quoted string is refused. */
function unitsToPieces(units: Unit[], groups: Group[]): Piece[] {
  const pieces: Piece[] = [];
  for (let i = 0; i < units.length;) {
    const unit = units[i];
    if (unit.group < 0) {
      pieces.push({ c: unit.ch, quoted: false });
      i += 1;
      continue;
    }
    const group = groups[unit.group];
    const length = [...group.raw].length;
    const whole = unit.index === 0 &&
      Array.from({ length }, (_, k) => units[i + k]).every((u, k) =>
        u?.group === unit.group && u.index === k
      );
    if (!whole) throw new Unknowable("brace expansion cuts a quoted string");
    pieces.push(...group.pieces);
    i += length;
  }
  return pieces;
}

/** A word of the form `name=value`: bash expands `~` after its `=` and `:` as in an assignment. */
function isAssignmentLike(pieces: Piece[]): boolean {
  let i = 0;
  for (; i < pieces.length; i++) {
    const piece = pieces[i];
    if (!("c" in piece) || piece.quoted) return false;
    if (piece.c === "=") break;
    const pattern = i === 0 ? /[A-Za-z_]/ : /[A-Za-z0-9_]/;
    if (!pattern.test(piece.c)) return false;
  }
  return i > 0 && i < pieces.length;
}

/**
 * Tilde expansion at the start of the word and, in assignments, after each
 * `:` (and after the `=` of an argument shaped like `name=value`). The prefix
 * runs to the first unquoted `/` (or `:`); a quoted character in it turns the
 * expansion off, as in bash.
 */
function expandTildes(
  pieces: Piece[],
  context: ExpandContext,
  assignment: "value" | boolean,
): Piece[] {
  const starts = new Set([0]);
  if (assignment) {
    const unquoted = (p: Piece, c: string) => "c" in p && p.c === c && !p.quoted;
    const equals = assignment === "value" ? -1 : pieces.findIndex((p) => unquoted(p, "="));
    if (equals >= 0) starts.add(equals + 1);
    for (let i = equals + 1; i < pieces.length; i++) {
      if (unquoted(pieces[i], ":")) starts.add(i + 1);
    }
  }
  const out: Piece[] = [];
  let i = 0;
  while (i < pieces.length) {
    if (starts.has(i)) {
      const expanded = tildePrefix(pieces, i, context, assignment);
      if (expanded) {
        out.push(...expanded.pieces);
        i = expanded.end;
        continue;
      }
    }
    out.push(pieces[i]);
    i += 1;
  }
  return out;
}

function tildePrefix(
  pieces: Piece[],
  start: number,
  context: ExpandContext,
  assignment: "value" | boolean,
): { pieces: Piece[]; end: number } | undefined {
  const first = pieces[start];
  if (!first || !("c" in first) || first.c !== "~" || first.quoted) return undefined;
  let end = start + 1;
  let name = "";
  for (; end < pieces.length; end++) {
    const piece = pieces[end];
    if ("c" in piece && !piece.quoted && (piece.c === "/" || (assignment && piece.c === ":"))) {
      break;
    }
    if ("atom" in piece) throw new Unknowable("a ~ prefix contains an expansion");
    if (piece.quoted) return undefined;
    name += piece.c;
  }
  let value: string | null | undefined;
  if (name === "") value = context.home;
  else if (name === "+") value = context.cwd;
  else throw new Unknowable(`~${name} names a directory the policy does not know`);
  if (value === undefined || value === null) {
    throw new Unknowable(`~${name} is a directory the policy does not know`);
  }
  context.budget.chars(value.length);
  return { pieces: [...value].map((c) => ({ c, quoted: true })), end };
}

/** Replaces variables and arithmetic with their values; unquoted values are marked for splitting. */
function expandAtoms(pieces: Piece[], context: ExpandContext): CharPiece[] {
  const out: CharPiece[] = [];
  for (const piece of pieces) {
    if (!("atom" in piece)) {
      out.push(piece);
      continue;
    }
    const value = atomValue(piece.atom, context);
    // Charged before a piece is made of each character: a doubled variable is the bomb.
    context.budget.chars(value.length);
    for (const c of value) {
      out.push({ c, quoted: piece.quoted, fromExpansion: !piece.quoted });
    }
    if (piece.quoted) out.push(quotedMarker());
  }
  return out;
}

function atomValue(atom: Node, context: ExpandContext): string {
  const { shell } = context;
  switch (shell.type(atom)) {
    case "ParamExp":
      return parameterValue(atom, context);
    case "ArithmExp":
      if (atom.Unsigned) throw new Unknowable("uses unsigned arithmetic, which bash does not have");
      return evaluateArithmetic(shell, atom.X);
    case "CmdSubst":
      throw new Unknowable("its arguments come from a command substitution ($(…) or backticks)");
    case "ProcSubst":
      throw new Unknowable("uses process substitution <(…) or >(…)");
    default:
      throw new Unknowable(`uses ${shell.type(atom)}, which the policy does not expand`);
  }
}

/** `$name` and `${name}` of a variable set to a literal earlier on the line; every other form is unknown. */
function parameterValue(node: Node, context: ExpandContext): string {
  const name: string = node.Param?.Value ?? "";
  const plain = !node.Excl && !node.Length && !node.Width && !node.Index && !node.Slice &&
    !node.Repl && !node.Exp && !node.Names;
  if (!plain) throw new Unknowable(`uses a \${${name}…} expansion whose value is not known`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new Unknowable(`expands $${name}, whose value is not known in advance`);
  }
  const value = context.vars.get(name);
  if (value === undefined || value === null) {
    throw new Unknowable(`expands the variable $${name}, whose value is not known in advance`);
  }
  return value;
}

const IFS_WHITESPACE = new Set([" ", "\t", "\n"]);

/**
 * Word splitting with the default IFS, applied only to unquoted expansion
 * results, then quote removal. A field made only of empty unquoted expansions disappears.
 */
function splitFields(pieces: CharPiece[]): Field[] {
  const fields: Field[] = [];
  let current: Char[] = [];
  let exists = false;
  const finish = () => {
    if (exists) fields.push(toField(current));
    current = [];
    exists = false;
  };
  for (const piece of pieces) {
    if (piece.fromExpansion && IFS_WHITESPACE.has(piece.c)) {
      finish();
      continue;
    }
    if (piece.c !== "") current.push({ c: piece.c, quoted: piece.quoted });
    exists = true;
  }
  finish();
  return fields;
}

function toField(chars: Char[]): Field {
  const text = chars.map((c) => c.c).join("");
  const glob = chars.some((c) => !c.quoted && (c.c === "*" || c.c === "?" || c.c === "["));
  return glob ? { text, glob: chars } : { text };
}

/** Bash quotes a `$'…'` string's result as `'…'` before brace expansion sees it. */
function singleQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Decodes bash's ANSI-C quoting (`$'\x2fetc'` is `/etc`). Escapes whose result
 * depends on the locale or makes bytes that are not text (`\u`, `\U`, `\c`,
 * bytes above 0x7f) are refused; a NUL ends the string, as in bash.
 */
export function decodeAnsiC(raw: string): string {
  let out = "";
  const chars = [...raw];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    let piece: string;
    if (c !== "\\" || i + 1 >= chars.length) {
      piece = c;
    } else {
      const next = chars[++i];
      if (next in SIMPLE_ESCAPES) {
        piece = SIMPLE_ESCAPES[next];
      } else if (/[0-7]/.test(next)) {
        let digits = next;
        while (digits.length < 3 && /[0-7]/.test(chars[i + 1] ?? "")) digits += chars[++i];
        piece = byte(parseInt(digits, 8) & 0xff);
      } else if (next === "x" && /[0-9A-Fa-f]/.test(chars[i + 1] ?? "")) {
        let digits = "";
        while (digits.length < 2 && /[0-9A-Fa-f]/.test(chars[i + 1] ?? "")) digits += chars[++i];
        piece = byte(parseInt(digits, 16));
      } else if (next === "u" || next === "U" || next === "c") {
        throw new Unknowable(`$'…' uses \\${next}, whose result depends on the locale`);
      } else {
        piece = `\\${next}`;
      }
    }
    // Only the piece just added can hold the NUL that ends the string.
    if (piece.includes("\0")) return out + piece.slice(0, piece.indexOf("\0"));
    out += piece;
  }
  return out;
}

function byte(value: number): string {
  if (value > 0x7f) throw new Unknowable("$'…' makes a byte that is not text");
  return String.fromCharCode(value);
}
