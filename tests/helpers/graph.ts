/** The static import graph of a module, as Deno itself sees it (`deno info`), without the `import()`s. */

import { assertEquals } from "./assert.ts";

const ROOT = new URL("../../", import.meta.url);

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/**
 * Every module `entry` (a path from the repository's root) imports statically,
 * directly or not: `npm:…`, `node:…` and paths from the root.
 *
 * @example
 * ```ts
 * (await staticGraph("main.ts")).includes("src/version.ts"); // true
 * ```
 */
export async function staticGraph(entry: string): Promise<string[]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  const { modules } = JSON.parse(new TextDecoder().decode(stdout)) as { modules: InfoModule[] };
  const bySpecifier = new Map(modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const queue = [new URL(entry, ROOT).href];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code) queue.push(dependency.code.specifier);
    }
  }
  return [...seen].map((specifier) => specifier.replace(ROOT.href, "")).sort();
}
