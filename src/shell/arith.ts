/**
 * Bash arithmetic (`$((…))`, `$[…]`, `((…))`), evaluated without a shell and
 * only when it is pure: integer constants and operators. A variable is refused
 * rather than read, because bash evaluates a variable's value as arithmetic in
 * turn, and an array subscript in that value (`a[$(id)]`) runs a command.
 */

import type { Node, Shell } from "./parse.ts";

/** Something the policy cannot know without running the command line. */
export class Unknowable extends Error {
  override name = "Unknowable";
}

const INT64_MIN = -(2n ** 63n);

/**
 * The value of an arithmetic expression, as bash prints it; throws Unknowable
 * when it reads or assigns a variable, runs anything, or would fail in bash.
 */
export function evaluateArithmetic(shell: Shell, node: Node): string {
  return String(evaluate(shell, node));
}

function evaluate(shell: Shell, node: Node): bigint {
  switch (shell.type(node)) {
    case "Word":
      return constant(shell, node);
    case "ParenArithm":
      return evaluate(shell, node.X);
    case "UnaryArithm":
      return unary(shell, node);
    case "BinaryArithm":
      return binary(shell, node);
    default:
      throw new Unknowable(
        `arithmetic uses ${shell.type(node)}, which the policy does not evaluate`,
      );
  }
}

function unary(shell: Shell, node: Node): bigint {
  const op = shell.tokens.arithUnary.get(node.Op);
  const value = evaluate(shell, node.X);
  switch (op) {
    case "+":
      return value;
    case "-":
      return wrap(-value);
    case "!":
      return value === 0n ? 1n : 0n;
    case "~":
      return wrap(~value);
    default:
      throw new Unknowable(`arithmetic changes a variable (${op ?? "an operator"})`);
  }
}

function binary(shell: Shell, node: Node): bigint {
  const op = shell.tokens.arithBinary.get(node.Op);
  if (op === "?") {
    if (shell.type(node.Y) !== "BinaryArithm" || shell.tokens.arithBinary.get(node.Y.Op) !== ":") {
      throw new Unknowable("arithmetic has a malformed ?: expression");
    }
    // Every branch is evaluated: a branch bash would skip must still be pure.
    const condition = evaluate(shell, node.X);
    const [then, otherwise] = [evaluate(shell, node.Y.X), evaluate(shell, node.Y.Y)];
    return condition !== 0n ? then : otherwise;
  }
  const left = evaluate(shell, node.X);
  const right = evaluate(shell, node.Y);
  switch (op) {
    case "+":
      return wrap(left + right);
    case "-":
      return wrap(left - right);
    case "*":
      return wrap(left * right);
    case "/":
    case "%":
      if (right === 0n) throw new Unknowable("arithmetic divides by zero");
      if (left === INT64_MIN && right === -1n) throw new Unknowable("arithmetic overflows");
      return op === "/" ? left / right : left % right;
    case "**":
      if (right < 0n) throw new Unknowable("arithmetic has a negative exponent");
      return power(left, right);
    case "<<":
    case ">>":
      if (right < 0n || right > 63n) throw new Unknowable("arithmetic shifts by more than 63 bits");
      return op === "<<" ? wrap(left << right) : left >> right;
    case "<":
      return left < right ? 1n : 0n;
    case "<=":
      return left <= right ? 1n : 0n;
    case ">":
      return left > right ? 1n : 0n;
    case ">=":
      return left >= right ? 1n : 0n;
    case "==":
      return left === right ? 1n : 0n;
    case "!=":
      return left !== right ? 1n : 0n;
    case "&":
      return wrap(left & right);
    case "^":
      return wrap(left ^ right);
    case "|":
      return wrap(left | right);
    case "&&":
      return left !== 0n && right !== 0n ? 1n : 0n;
    case "||":
      return left !== 0n || right !== 0n ? 1n : 0n;
    case ",":
      return right;
    default:
      throw new Unknowable(`arithmetic assigns a variable (${op ?? "an operator"})`);
  }
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let square = base;
  let rest = exponent;
  while (rest > 0n) {
    if (rest & 1n) result = wrap(result * square);
    square = wrap(square * square);
    rest >>= 1n;
  }
  return result;
}

/** Bash's integers are 64-bit and wrap around. */
function wrap(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}

/** An integer constant: decimal, 0x hex, 0 octal, or BASE#digits. Anything else is a variable. */
function constant(shell: Shell, word: Node): bigint {
  const parts = word.Parts ?? [];
  if (parts.length !== 1 || shell.type(parts[0]) !== "Lit") {
    throw new Unknowable("arithmetic expands a word, which bash evaluates again as arithmetic");
  }
  const text: string = parts[0].Value;
  const value = parseConstant(text);
  if (value === undefined) {
    throw new Unknowable(
      /^[A-Za-z_]/.test(text)
        ? `arithmetic reads the variable ${text}, whose value bash evaluates as arithmetic`
        : `arithmetic has the constant '${text}', which bash rejects`,
    );
  }
  return value;
}

/** Parses a bash integer constant; undefined when bash would not read it as one. */
export function parseConstant(text: string): bigint | undefined {
  let base = 10;
  let digits = text;
  const based = /^([0-9]+)#([0-9A-Za-z@_]+)$/.exec(text);
  if (based) {
    base = Number(based[1]);
    digits = based[2];
    if (base < 2 || base > 64) return undefined;
  } else if (/^0[xX][0-9A-Fa-f]+$/.test(text)) {
    base = 16;
    digits = text.slice(2);
  } else if (/^0[0-7]*$/.test(text)) {
    base = 8;
  } else if (!/^[1-9][0-9]*$/.test(text)) {
    return undefined;
  }
  let value = 0n;
  for (const digit of digits) {
    const n = digitValue(digit, base);
    if (n === undefined || n >= base) return undefined;
    value = wrap(value * BigInt(base) + BigInt(n));
  }
  return value;
}

function digitValue(digit: string, base: number): number | undefined {
  if (/[0-9]/.test(digit)) return Number(digit);
  if (/[a-z]/.test(digit)) return digit.charCodeAt(0) - 97 + 10;
  if (/[A-Z]/.test(digit)) {
    // Up to base 36 letters are case-insensitive; above, A–Z are 36–61.
    return digit.charCodeAt(0) - 65 + (base <= 36 ? 10 : 36);
  }
  if (digit === "@") return 62;
  if (digit === "_") return 63;
  return undefined;
}
