/** The file tools' shared helpers: reads through a handle, walks that fail closed. */

import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { readAll, walk } from "../../src/builtins/file_helpers.ts";
import { PathChangedError, PathError } from "../../src/sandbox/paths.ts";

async function fixture() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-fs-" }));
  const root = `${base}/workspace`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  return {
    root,
    outside,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

Deno.test("readAll reads a handle to its end, or up to a limit", async () => {
  await using f = await fixture();
  const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
  await Deno.writeFile(`${f.root}/data.bin`, bytes);
  {
    using file = await Deno.open(`${f.root}/data.bin`);
    assertEquals(await readAll(file), bytes);
  }
  using file = await Deno.open(`${f.root}/data.bin`);
  assertEquals(await readAll(file, 70_001), bytes.subarray(0, 70_001));
});

Deno.test("walk skips what it cannot read but stops at a directory that changed", async () => {
  await using f = await fixture();
  await Deno.mkdir(`${f.root}/a/b`, { recursive: true });
  await Deno.writeTextFile(`${f.root}/a/b/c.txt`, "c");
  await Deno.writeTextFile(`${f.root}/top.txt`, "t");
  const unreadable = async (dir: string) => {
    if (dir.endsWith("/a")) throw new PathError(dir, "cannot be read");
    return await Array.fromAsync(Deno.readDir(dir));
  };
  const seen = await Array.fromAsync(walk(f.root, unreadable), (entry) => entry.relative);
  assertEquals(seen.sort(), ["a", "top.txt"]);
  const swapped = async (dir: string) => {
    if (dir.endsWith("/a")) throw new PathChangedError(dir);
    return await Array.fromAsync(Deno.readDir(dir));
  };
  const error = await assertRejects(() => Array.fromAsync(walk(f.root, swapped)));
  assert(error instanceof PathChangedError, String(error));
});
