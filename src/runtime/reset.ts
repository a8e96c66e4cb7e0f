/**
 * The memory side of `hob reset` in one home: every file under memory/ is
 * deleted, MEMORY.md comes back as the template, and the index follows the
 * files. What a reset counts and when it deletes is the app's reset action
 * (src/app/reset.ts); this module only knows where the files are.
 */

import { join, relative } from "node:path";
import type { MemoryReset } from "../app/reset.ts";
import { ensureHome } from "../home/home.ts";
import type { Memory } from "../memory/memory.ts";

/**
 * The memory reset of a home.
 *
 * @example
 * ```ts
 * const reset = createMemoryReset(home, memory);
 * await reset.clear(await reset.files()); // memory/ holds the template MEMORY.md again
 * ```
 */
export function createMemoryReset(home: string, memory: Memory): MemoryReset {
  const dir = memory.files.dir;
  return {
    async files() {
      const found: string[] = [];
      await collectFiles(dir, found);
      return found.map((file) => relative(dir, file));
    },
    chunks: () => memory.index.stats().chunks,
    async clear(files) {
      // Through memory's writer: each deletion is a version, so a reset can be undone file by file.
      const by = { author: "owner", via: "reset" } as const;
      for (const file of files) await memory.files.remove(file, by).catch(() => {});
      await ensureHome(home);
      await memory.reindex();
    },
  };
}

async function collectFiles(dir: string, into: string[]): Promise<void> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      // Hidden entries are the writers' lock and temporary files, not memory.
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory) await collectFiles(path, into);
      else into.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
