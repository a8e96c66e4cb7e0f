/**
 * No function in src/ grows past a screenful: a long function is a list of
 * steps waiting for names. Functions are found with Deno's own parser (the
 * lint plugin API), so strings, templates and regexes cannot fool the count.
 *
 * `deno test -A tests/code/function_length_test.ts` prints the five longest.
 */

import { assertEquals } from "../helpers/assert.ts";

/** Lines one function may span, from its first line to its closing brace. */
const MAX_FUNCTION_LINES = 100;

/**
 * Functions still past the limit, by `file::name`: the most lines each may
 * have (it may shrink, never grow) and why it is not split yet. None is long
 * for a good reason; each is a list of steps waiting for names, in an area
 * being reworked under issue 15. Remove a line once its function is split;
 * never add one for new code.
 */
const NOT_YET_SPLIT: Record<string, { lines: number; why: string }> = {};

/** One function (declaration, method, arrow or expression) and the lines it spans. */
export interface FunctionSpan {
  /** Relative to the repository, with `/` separators. */
  file: string;
  /** `name`, `Class.method`, or `(anonymous)@line` for a callback. */
  name: string;
  line: number;
  lines: number;
}

/**
 * Every function in `source` with its length in lines.
 *
 * @example
 * ```ts
 * functionSpans("a.ts", "function f() {\n  return 1;\n}"); // [{ name: "f", line: 1, lines: 3, … }]
 * ```
 */
export function functionSpans(file: string, source: string): FunctionSpan[] {
  const spans: FunctionSpan[] = [];
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0, high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const visit = (node: Deno.lint.Node) => {
    const [start, end] = node.range;
    const line = lineOf(start);
    spans.push({
      file,
      name: nameOf(node as Node, source) ?? `(anonymous)@${line}`,
      line,
      lines: lineOf(end) - line + 1,
    });
  };
  const plugin: Deno.lint.Plugin = {
    name: "function-length",
    rules: {
      spans: {
        create: () => ({
          FunctionDeclaration: visit,
          FunctionExpression: visit,
          ArrowFunctionExpression: visit,
        }),
      },
    },
  };
  Deno.lint.runPlugin(plugin, file, source);
  return spans;
}

/** Any AST node, with the parent link the lint API gives it. */
type Node = Deno.lint.Node & { parent?: Node };

/**
 * What a function is called where it is defined: its own name, `Class.method`,
 * or for a callback the call it is passed to and the function around it
 * (`openAiRoutes > app.post("/chat/completions")`), which do not move when
 * lines are added above it.
 */
function nameOf(node: Node, source: string): string | null {
  if (node.type === "FunctionDeclaration" && node.id) return node.id.name;
  const parent = node.parent;
  if (!parent) return null;
  if (parent.type === "MethodDefinition" || parent.type === "PropertyDefinition") {
    const owner = parent.parent?.parent;
    const className = owner && "id" in owner && owner.id && "name" in owner.id
      ? owner.id.name
      : "(class)";
    return `${className}.${keyName(parent.key)}`;
  }
  if (parent.type === "VariableDeclarator" && parent.id.type === "Identifier") {
    return parent.id.name;
  }
  if (parent.type === "Property") return keyName(parent.key);
  if (parent.type === "CallExpression") {
    const callee = source.slice(...parent.callee.range).replace(/\s+/g, "");
    const first = parent.arguments[0];
    const label = first?.type === "Literal" && typeof first.value === "string"
      ? JSON.stringify(first.value)
      : "…";
    const around = enclosingName(parent, source);
    return `${around ? `${around} > ` : ""}${callee}(${label})`;
  }
  return null;
}

/** The name of the nearest named function around `node`, if any. */
function enclosingName(node: Node, source: string): string | null {
  for (let up = node.parent; up; up = up.parent) {
    if (
      up.type === "FunctionDeclaration" || up.type === "FunctionExpression" ||
      up.type === "ArrowFunctionExpression"
    ) {
      const name = nameOf(up, source);
      if (name) return name;
    }
  }
  return null;
}

function keyName(key: Deno.lint.Node): string | null {
  return key.type === "Identifier"
    ? key.name
    : key.type === "PrivateIdentifier"
    ? `#${key.name}`
    : key.type === "Literal"
    ? String(key.value)
    : null;
}

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

/** Every function in src/, longest first. */
export async function srcFunctions(): Promise<FunctionSpan[]> {
  const root = new URL("../../", import.meta.url);
  const spans: FunctionSpan[] = [];
  for await (const url of sourceFiles(new URL("src/", root))) {
    const file = url.pathname.slice(root.pathname.length);
    spans.push(...functionSpans(file, await Deno.readTextFile(url)));
  }
  return spans.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

Deno.test("functionSpans names and measures each kind of function", () => {
  const source = [
    "function top() {", // 1
    "  const s = `${'}'}`; return /}/;", // 2
    "}", // 3
    "class Box {", // 4
    "  #inner() {", // 5
    "  }", // 6
    "  field = () => 1;", // 7
    "}", // 8
    "const arrow = async () => {", // 9
    "  [1].map((x) => x);", // 10
    "};", // 11
  ].join("\n");
  const spans = functionSpans("a.ts", source).map(({ name, line, lines }) => ({
    name,
    line,
    lines,
  }));
  assertEquals(spans, [
    { name: "top", line: 1, lines: 3 },
    { name: "Box.#inner", line: 5, lines: 2 },
    { name: "Box.field", line: 7, lines: 1 },
    { name: "arrow", line: 9, lines: 3 },
    { name: "arrow > [1].map(…)", line: 10, lines: 1 },
  ]);
});

Deno.test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, async () => {
  const spans = await srcFunctions();
  console.log(
    "The five longest functions in src/:\n" +
      spans.slice(0, 5).map((s) => `  ${s.lines} lines  ${s.name}  ${s.file}:${s.line}`).join("\n"),
  );
  const over = spans
    .filter((s) => s.lines > (NOT_YET_SPLIT[`${s.file}::${s.name}`]?.lines ?? MAX_FUNCTION_LINES))
    .map((s) => `${s.file}::${s.name} (${s.lines} lines)`);
  assertEquals(over, [], "split these into named steps: a long function is a list of steps");
});
