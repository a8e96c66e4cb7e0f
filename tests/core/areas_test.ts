/**
 * The areas of src/ and which may import which: no area imports one that
 * imports it back (directly or round a longer loop), and the imports are
 * exactly the map in docs/architecture.md — an import the map does not allow
 * fails, and so does a line of the map no import uses, so the document stays
 * true to the code. Inside an area too, no file imports one that imports it
 * back: each can be read after what it uses. Type-only and dynamic imports
 * count: they are dependencies too.
 */

import { dirname, join, relative } from "node:path";
import { assertEquals } from "../helpers/assert.ts";
import { areaMap } from "../../scripts/areas_picture.ts";

const SRC = new URL("../../src/", import.meta.url).pathname;
const DOC = new URL("../../docs/architecture.md", import.meta.url);
const IMPORT = /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** An area: the first folder under src/ (a file directly in src/ is an area of its own). */
function areaOf(path: string): string | null {
  const inside = relative(SRC, path);
  if (inside.startsWith("..")) return null;
  return inside.split("/")[0].replace(/\.ts$/, "");
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Which areas each area imports, and one import that shows it. */
async function areaImports(): Promise<Map<string, Map<string, string>>> {
  const edges = new Map<string, Map<string, string>>();
  for await (const file of sourceFiles(SRC)) {
    const from = areaOf(file)!;
    edges.set(from, edges.get(from) ?? new Map());
    for (const match of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith(".")) continue;
      const to = areaOf(join(dirname(file), specifier));
      if (to === null || to === from) continue;
      edges.get(from)!.set(to, `${relative(SRC, file)} imports ${specifier}`);
    }
  }
  return edges;
}

/** Every file of src/ (by its path there) and the files of src/ it imports. */
async function fileImports(): Promise<Map<string, Set<string>>> {
  const graph = new Map<string, Set<string>>();
  for await (const file of sourceFiles(SRC)) {
    const imports = new Set<string>();
    for (const match of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith(".")) continue;
      const target = join(dirname(file), specifier);
      if (areaOf(target) !== null) imports.add(relative(SRC, target));
    }
    graph.set(relative(SRC, file), imports);
  }
  return graph;
}

/**
 * The loops of an import graph: each set of files that reach one another
 * (a strongly connected component of more than one file, or a file that
 * imports itself), found by Tarjan's algorithm, with the imports inside it.
 */
export function loopsOf(graph: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length === 1 && !graph.get(file)!.has(file)) return;
    members.sort();
    const imports = members.flatMap((from) =>
      [...graph.get(from)!].filter((to) => members.includes(to)).map((to) => `${from} → ${to}`)
    );
    loops.push(`${members.join(", ")} (${imports.join("; ")})`);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return loops;
}

/** The map in docs/architecture.md (scripts/areas_picture.ts reads it for the picture too). */
async function documentedMap(): Promise<Map<string, Set<string>>> {
  return areaMap(await Deno.readTextFile(DOC));
}

Deno.test("no area of src/ imports one that imports it back", async () => {
  const edges = await areaImports();
  const cycles: string[] = [];
  // Depth-first search for a path back to where it started.
  const reaches = (from: string, to: string, seen = new Set<string>()): string[] | null => {
    for (const next of edges.get(from)?.keys() ?? []) {
      if (next === to) return [from, to];
      if (seen.has(next)) continue;
      seen.add(next);
      const path = reaches(next, to, seen);
      if (path) return [from, ...path];
    }
    return null;
  };
  for (const area of edges.keys()) {
    const loop = reaches(area, area);
    if (loop) {
      const steps = loop.slice(0, -1).map((a, i) => edges.get(a)!.get(loop[i + 1])!);
      cycles.push(`${loop.join(" → ")} (${steps.join("; ")})`);
    }
  }
  assertEquals(cycles, []);
});

Deno.test("the areas import exactly what docs/architecture.md allows", async () => {
  const edges = await areaImports();
  const documented = await documentedMap();
  const problems: string[] = [];
  for (const [area, imports] of edges) {
    const allowed = documented.get(area);
    if (!allowed) {
      problems.push(`src/${area} is not in docs/architecture.md's map`);
      continue;
    }
    for (const [to, example] of imports) {
      if (!allowed.has(to)) problems.push(`${area} may not import ${to}: ${example}`);
    }
    for (const to of allowed) {
      if (!imports.has(to)) problems.push(`the map lets ${area} import ${to}, which it does not`);
    }
  }
  for (const area of documented.keys()) {
    if (!edges.has(area)) problems.push(`the map names ${area}, which src/ does not have`);
  }
  assertEquals(problems, []);
});

Deno.test("loopsOf finds the files that import one another, and nothing in a chain", () => {
  const graph = (edges: Record<string, string[]>) =>
    new Map(Object.entries(edges).map(([file, imports]) => [file, new Set(imports)]));
  assertEquals(loopsOf(graph({ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] })), []);
  assertEquals(
    loopsOf(graph({ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": ["a.ts"], "d.ts": ["a.ts"] })),
    ["a.ts, b.ts, c.ts (a.ts → b.ts; b.ts → c.ts; c.ts → a.ts)"],
  );
  assertEquals(loopsOf(graph({ "a.ts": ["a.ts"] })), ["a.ts (a.ts → a.ts)"]);
});

Deno.test("no file of src/ imports one that imports it back", async () => {
  assertEquals(loopsOf(await fileImports()), []);
});
