/** The core knows only its ports: nothing in src/core imports from outside it. */

import { assertEquals } from "../helpers/assert.ts";

Deno.test("src/core imports nothing outside src/core", async () => {
  const dir = new URL("../../src/core/", import.meta.url);
  const offenders: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, dir));
    const specifiers = [
      ...source.matchAll(
        /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
      ),
    ]
      .map((m) => m[1] ?? m[2]);
    for (const specifier of specifiers) {
      if (!/^\.\/[\w.-]+\.ts$/.test(specifier)) {
        offenders.push(`${entry.name} imports ${specifier}`);
      }
    }
  }
  assertEquals(offenders, []);
});
