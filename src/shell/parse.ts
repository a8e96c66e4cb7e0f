/**
 * The shell parser: mvdan/sh's syntax package (the parser behind shfmt),
 * compiled to JavaScript. Only `syntax` is exported by the npm build — there
 * is no `expand` package — so expansion is ours (see expand.ts). The parser's
 * token numbers are not part of its JavaScript API, so they are learned here
 * by parsing one sample of each operator: an operator this table does not
 * name stays unknown, and unknown means the policy asks.
 */

/**
 * A node of the syntax tree, copied out of GopherJS into a plain object: its
 * Go type name in `type`, and the fields the policy reads, by their Go names.
 */
// deno-lint-ignore no-explicit-any
export type Node = any;

/**
 * The fields copied for each node type. Reading a GopherJS node's fields is
 * slow (every access converts between Go and JavaScript values), so the tree
 * is copied once. A field missing here would hide part of the line, so the
 * copy is checked against the parser's own walk (see `parse`).
 */
const FIELDS: Record<string, string[]> = {
  File: ["Stmts", "Last"],
  Stmt: ["Comments", "Cmd", "Redirs", "Negated", "Background", "Coprocess"],
  Comment: [],
  Redirect: ["Op", "N", "Word", "Hdoc"],
  CallExpr: ["Assigns", "Args"],
  Assign: ["Append", "Naked", "Name", "Index", "Value", "Array"],
  ArrayExpr: ["Elems", "Last"],
  ArrayElem: ["Index", "Value", "Comments"],
  Word: ["Parts"],
  Lit: ["Value"],
  SglQuoted: ["Dollar", "Value"],
  DblQuoted: ["Dollar", "Parts"],
  ParamExp: ["Short", "Excl", "Length", "Width", "Param", "Index", "Slice", "Repl", "Names", "Exp"],
  Slice: ["Offset", "Length"],
  Replace: ["All", "Orig", "With"],
  Expansion: ["Op", "Word"],
  ArithmExp: ["Bracket", "Unsigned", "X"],
  ArithmCmd: ["Unsigned", "X"],
  BinaryArithm: ["Op", "X", "Y"],
  UnaryArithm: ["Op", "Post", "X"],
  ParenArithm: ["X"],
  CmdSubst: ["Stmts", "Last", "Backquotes"],
  ProcSubst: ["Op", "Stmts", "Last"],
  ExtGlob: ["Op", "Pattern"],
  BinaryCmd: ["Op", "X", "Y"],
  Subshell: ["Stmts", "Last"],
  Block: ["Stmts", "Last"],
  IfClause: ["Cond", "CondLast", "Then", "ThenLast", "Else", "Last"],
  WhileClause: ["Until", "Cond", "CondLast", "Do", "DoLast"],
  ForClause: ["Select", "Loop", "Do", "DoLast"],
  WordIter: ["Name", "Items"],
  CStyleLoop: ["Init", "Cond", "Post"],
  CaseClause: ["Word", "Items", "Last"],
  CaseItem: ["Op", "Comments", "Patterns", "Stmts", "Last"],
  FuncDecl: ["RsrvWord", "Name", "Body"],
  TestClause: ["X"],
  BinaryTest: ["Op", "X", "Y"],
  UnaryTest: ["Op", "X"],
  ParenTest: ["X"],
  DeclClause: ["Variant", "Args"],
  LetClause: ["Exprs"],
  TimeClause: ["PosixFormat", "Stmt"],
  CoprocClause: ["Name", "Stmt"],
  TestDecl: ["Description", "Body"],
  BraceExp: ["Sequence", "Elems"],
};

/** Operator names, by the parser's token number. */
export interface Tokens {
  /** Redirection operators: `>`, `>>`, `<`, `<>`, `<&`, `>&`, `>|`, `<<`, `<<-`, `<<<`, `&>`, `&>>`. */
  redirect: Map<number, string>;
  /** `&&`, `||`, `|`, `|&`. */
  binaryCmd: Map<number, string>;
  /** Binary arithmetic operators, assignments included (`=`, `+=`, …), and `?`/`:`. */
  arithBinary: Map<number, string>;
  /** Unary arithmetic operators: `+`, `-`, `!`, `~`, `++`, `--`. */
  arithUnary: Map<number, string>;
  /** `[[ ]]` binary operators: `==`, `-eq`, `-nt`, `&&`, … */
  testBinary: Map<number, string>;
  /** `[[ ]]` unary operators: `-f`, `-z`, `!`, … */
  testUnary: Map<number, string>;
}

/** The loaded parser. */
export interface Shell {
  /**
   * Parses bash source into a plain tree; throws a ShellSyntaxError when it
   * does not parse. `incomplete` on the result is set when the copy missed
   * nodes the parser has (the policy then asks). `tick` is called for every
   * node walked or copied, so a deadline can stop the work on a large tree.
   */
  parse(source: string, tick?: () => void): Node;
  /** A node's Go type name without the package: "CallExpr", "Lit", … */
  type(node: Node): string;
  /** Visits every node under `node`, depth first. */
  walk(node: Node, visit: (node: Node) => boolean): void;
  tokens: Tokens;
}

/** A command line that is not valid bash. */
export class ShellSyntaxError extends Error {
  override name = "ShellSyntaxError";
}

/** A command line nested deeper than MAX_DEPTH: valid bash, but more than the policy reads. */
export class ShellTooDeep extends Error {
  override name = "ShellTooDeep";
}

/**
 * Levels of nodes the policy follows. Lines people write nest a few dozen;
 * the parser's own walk (in GopherJS) overflows its stack at about two thousand,
 * and takes seconds to unwind when it does.
 */
const MAX_DEPTH = 500;

const REDIRECTS = [">", ">>", "<", "<>", "<&", ">&", ">|", "<<", "<<-", "<<<", "&>", "&>>"];
const BINARY_CMDS = ["&&", "||", "|", "|&"];
const ARITH_BINARY = [
  "+",
  "-",
  "*",
  "/",
  "%",
  "**",
  "<<",
  ">>",
  "<",
  "<=",
  ">",
  ">=",
  "==",
  "!=",
  "&",
  "^",
  "|",
  "&&",
  "||",
  ",",
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "<<=",
  ">>=",
  "&=",
  "^=",
  "|=",
];
const TEST_BINARY = [
  "==",
  "=",
  "!=",
  "=~",
  "<",
  ">",
  "-eq",
  "-ne",
  "-lt",
  "-le",
  "-gt",
  "-ge",
  "-nt",
  "-ot",
  "-ef",
  "&&",
  "||",
];
const TEST_UNARY = [
  "-e",
  "-f",
  "-d",
  "-c",
  "-b",
  "-p",
  "-S",
  "-L",
  "-h",
  "-k",
  "-g",
  "-u",
  "-G",
  "-O",
  "-N",
  "-r",
  "-w",
  "-x",
  "-s",
  "-t",
  "-z",
  "-n",
  "-o",
  "-v",
  "-R",
  "-a",
  "!",
];

let loading: Promise<Shell> | undefined;

/** Loads mvdan/sh once (about 1.5 MB of JavaScript) and learns its token numbers. */
export function loadShell(): Promise<Shell> {
  return loading ??= import("mvdan-sh").then((module) => createShell(module.default.syntax));
}

function createShell(syntax: Node): Shell {
  // Comments are kept to catch the one place where the parser and bash disagree (below).
  const parser = syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash));
  const type = (node: Node): string => node.type;
  const walk = (node: Node, visit: (node: Node) => boolean) => walkPlain(node, visit);
  const parse = (source: string, tick: () => void = () => {}) =>
    parseSource(syntax, parser, source, tick);
  const first = (source: string, nodeType: string): Node => {
    let found: Node;
    walk(parse(source), (node) => {
      if (!found && type(node) === nodeType) found = node;
      return !found;
    });
    return found;
  };
  const learn = (ops: string[], sample: (op: string) => string, nodeType: string) => {
    const map = new Map<number, string>();
    for (const op of ops) {
      const node = first(sample(op), nodeType);
      if (node) map.set(node.Op, op);
    }
    return map;
  };
  const arithUnary = learn(["+", "-", "!", "~"], (op) => `: $((${op}1))`, "UnaryArithm");
  for (const [op, sample] of [["++", ": $((++a))"], ["--", ": $((--a))"]]) {
    arithUnary.set(first(sample, "UnaryArithm").Op, op);
  }
  const arithBinary = learn(ARITH_BINARY, (op) => `: $((a ${op} 1))`, "BinaryArithm");
  // `a ? b : c` is a `?` node whose right side is a `:` node.
  const ternary = first(": $((a ? 1 : 2))", "BinaryArithm");
  arithBinary.set(ternary.Op, "?");
  arithBinary.set(ternary.Y.Op, ":");
  return {
    parse,
    type,
    walk,
    tokens: {
      redirect: learn(REDIRECTS, (op) => `: ${op} a\na\n`, "Redirect"),
      binaryCmd: learn(BINARY_CMDS, (op) => `a ${op} b`, "BinaryCmd"),
      arithBinary,
      arithUnary,
      testBinary: learn(TEST_BINARY, (op) => `[[ a ${op} b ]]`, "BinaryTest"),
      testUnary: learn(TEST_UNARY, (op) => `[[ ${op} a ]]`, "UnaryTest"),
    },
  };
}

/** Parses one line into a plain tree, checked against the parser's own walk. */
function parseSource(syntax: Node, parser: Node, source: string, tick: () => void): Node {
  let tree: Node;
  try {
    tree = parser.Parse(source, "");
  } catch (error) {
    throw new ShellSyntaxError(goErrorMessage(error).replace(/^:?\d+:\d+: /, ""));
  }
  // Copied first: the copy stops a tree nested too deep before the parser's walk overflows on it.
  const plain = copyNode(syntax, tree, { tick, depth: 0 });
  // Every node the parser's own walk reaches must be in the copy (the copy may
  // reach more: this Walk skips ${a:off:len} and declare's keyword).
  const parsed = new Map<string, number>();
  let continuedComment = false;
  syntax.Walk(tree, (node: Node) => {
    if (!node) return true;
    tick();
    const nodeType = syntax.NodeType(node);
    count(parsed, nodeType);
    if (nodeType === "Comment" && String(node.Text).includes("\n")) continuedComment = true;
    return true;
  });
  // bash ends a comment at the newline even after a backslash; this parser joins the
  // next line to it, and would read `ls # \⏎rm x` as one command.
  if (continuedComment) {
    throw new ShellSyntaxError(
      "a comment ends with a backslash, which bash and the policy's parser read differently",
    );
  }
  const copied = new Map<string, number>();
  walkPlain(plain, (node) => {
    tick();
    count(copied, node.type);
    return true;
  });
  plain.incomplete = [...parsed].some(([nodeType, n]) => (copied.get(nodeType) ?? 0) < n);
  return plain;
}

/**
 * Fields that hold Go structs that are not nodes (syntax.Walk walks into them
 * without visiting them), or comments held by value; NodeType cannot name them.
 */
const STRUCT_FIELDS: Record<string, string> = {
  Slice: "Slice",
  Repl: "Replace",
  Exp: "Expansion",
  Comments: "Comment",
  Last: "Comment",
  CondLast: "Comment",
  ThenLast: "Comment",
  DoLast: "Comment",
};

function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** Where a copy is: its tick, and how deep the node being copied is. */
interface CopyPlace {
  tick: () => void;
  depth: number;
}

/** Copies a GopherJS node and everything under it into plain objects, ticking once a node. */
function copyNode(
  syntax: Node,
  node: Node,
  place: CopyPlace,
  type: string = syntax.NodeType(node),
): Node {
  place.tick();
  if (place.depth > MAX_DEPTH) {
    throw new ShellTooDeep(`the line nests deeper than ${MAX_DEPTH} levels`);
  }
  const inner = { tick: place.tick, depth: place.depth + 1 };
  const plain: Node = { type };
  for (const field of FIELDS[type] ?? []) {
    plain[field] = copyValue(syntax, node[field], field, inner);
  }
  return plain;
}

function copyValue(syntax: Node, value: unknown, field: string, place: CopyPlace): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((item) => copyValue(syntax, item, field, place));
  if (typeof value === "object") return copyNode(syntax, value, place, STRUCT_FIELDS[field]);
  return value;
}

/** Visits every node of a plain tree, depth first; `visit` returns false to skip a node's children. */
function walkPlain(node: Node, visit: (node: Node) => boolean): void {
  if (!node || typeof node !== "object") return;
  if (!visit(node)) return;
  for (const field of FIELDS[node.type] ?? []) {
    const value = node[field];
    if (Array.isArray(value)) { for (const item of value) walkPlain(item, visit); }
    else if (value && typeof value === "object") walkPlain(value, visit);
  }
}

/** GopherJS throws Go error values; their text comes from the Error method. */
function goErrorMessage(error: unknown): string {
  const goError = error as { Error?: () => string; message?: string };
  if (typeof goError?.Error === "function") return goError.Error();
  return goError?.message ?? String(error);
}
