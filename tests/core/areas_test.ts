/**
 * The areas of src/ and which may import which: no area imports one that
 * imports it back (directly or round a longer loop), and the imports are
 * exactly the map in docs/architecture.md — an import the map does not allow
 * fails, and so does a line of the map no import uses, so the document stays
 * true to the code. Type-only and dynamic imports count: they are dependencies too.
 */

import { dirname, join, relative } from "node:path";
import { assertEquals } from "../helpers/assert.ts";

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

/** The map in docs/architecture.md: rows `| \`area\` | … | \`a\`, \`b\` |` (— for none). */
async function documentedMap(): Promise<Map<string, Set<string>>> {
  const map = new Map<string, Set<string>>();
  for (const line of (await Deno.readTextFile(DOC)).split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const area = /^`([a-z_]+)`$/.exec(cells[1] ?? "")?.[1];
    if (!area || cells.length < 5) continue;
    const allowed = [...(cells[3] ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    map.set(area, new Set(allowed));
  }
  return map;
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
