/**
 * `deno task docs:areas`: the picture of src/'s areas in docs/architecture.md,
 * drawn (as a Mermaid flowchart) from the table above it, so it cannot go
 * stale: tests/docs/areas_picture_test.ts fails when the picture and the
 * table differ. An arrow means "imports"; an arrow implied by a longer path
 * is left out (the transitive reduction), so what remains is the shape.
 */

/** The doc the table and the picture are in. */
export const ARCHITECTURE_DOC = new URL("../docs/architecture.md", import.meta.url);
const START = "<!-- areas picture: made by `deno task docs:areas` from the table above -->";
const END = "<!-- end of the areas picture -->";

/**
 * The table of docs/architecture.md: rows `| \`area\` | … | \`a\`, \`b\` |`
 * (— for none), as each area and the areas it may import.
 *
 * @example
 * ```ts
 * areaMap("| `core` | the loop | — |\n| `app` | actions | `core` |").get("app"); // Set { "core" }
 * ```
 */
export function areaMap(markdown: string): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const area = /^`([a-z_]+)`$/.exec(cells[1] ?? "")?.[1];
    if (!area || cells.length < 5) continue;
    const allowed = [...(cells[3] ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    map.set(area, new Set(allowed));
  }
  return map;
}

/**
 * The Mermaid flowchart of `map`: every area a box, an arrow where it imports
 * another and no longer path says so already.
 *
 * @example
 * ```ts
 * areasPicture(new Map([["app", new Set(["core"])], ["core", new Set()]]));
 * // "```mermaid\nflowchart TD\n  app --> core\n```"
 * ```
 */
export function areasPicture(map: Map<string, Set<string>>): string {
  const reaches = (from: string, to: string, skip: string): boolean => {
    const seen = new Set<string>();
    const stack = [...(map.get(from) ?? [])].filter((next) => next !== skip);
    while (stack.length > 0) {
      const area = stack.pop()!;
      if (area === to) return true;
      if (seen.has(area)) continue;
      seen.add(area);
      stack.push(...(map.get(area) ?? []));
    }
    return false;
  };
  const lines = ["```mermaid", "flowchart TD"];
  for (const [area, imports] of [...map].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kept = [...imports].sort().filter((to) => !reaches(area, to, to));
    if (kept.length === 0 && ![...map.values()].some((set) => set.has(area))) {
      lines.push(`  ${area}`);
    }
    for (const to of kept) lines.push(`  ${area} --> ${to}`);
  }
  lines.push("```");
  return lines.join("\n");
}

/** The doc with its picture made anew from its table; throws when the markers are missing. */
export function withPicture(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md lacks the markers ${START}`);
  const picture = areasPicture(areaMap(doc.slice(0, start)));
  return `${doc.slice(0, start + START.length)}\n\n${picture}\n\n${doc.slice(end)}`;
}

if (import.meta.main) {
  const doc = await Deno.readTextFile(ARCHITECTURE_DOC);
  await Deno.writeTextFile(ARCHITECTURE_DOC, withPicture(doc));
  console.log(`wrote ${ARCHITECTURE_DOC.pathname}`);
}
