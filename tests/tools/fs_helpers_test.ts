/** The file tools' shared helpers: verified writes, reads through a handle, walks that fail closed. */

import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { readAll, walk, writeInRoots } from "../../src/tools/fs_helpers.ts";
import { PathChangedError, PathError } from "../../src/tools/sandbox/paths.ts";

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

/** Every name under `dir`, recursively, relative to it. */
async function tree(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of walk(dir)) names.push(entry.relative);
  return names.sort();
}

Deno.test("writeInRoots writes only inside, through verified handles", async (t) => {
  await using f = await fixture();
  await t.step("creates missing parents and returns the real path", async () => {
    const written = await writeInRoots("notes/2026/plan.md", "one\n", [f.root]);
    assertEquals(written, `${f.root}/notes/2026/plan.md`);
    assertEquals(await Deno.readTextFile(written), "one\n");
  });
  await t.step("replaces whole, leaving no temporary file behind", async () => {
    await writeInRoots("notes/2026/plan.md", "two\n", [f.root]);
    assertEquals(await Deno.readTextFile(`${f.root}/notes/2026/plan.md`), "two\n");
    assertEquals(await tree(`${f.root}/notes`), ["2026", "2026/plan.md"]);
  });
  await t.step("appends, and an append to a missing file creates it", async () => {
    await writeInRoots("notes/2026/plan.md", "three\n", [f.root], { append: true });
    assertEquals(await Deno.readTextFile(`${f.root}/notes/2026/plan.md`), "two\nthree\n");
    await writeInRoots("log.txt", "first\n", [f.root], { append: true });
    await writeInRoots("log.txt", "second\n", [f.root], { append: true });
    assertEquals(await Deno.readTextFile(`${f.root}/log.txt`), "first\nsecond\n");
  });
  await t.step("refuses links out, in the middle and at the leaf", async () => {
    await Deno.symlink(f.outside, `${f.root}/out`);
    await Deno.writeTextFile(`${f.outside}/target.txt`, "untouched");
    await Deno.symlink(`${f.outside}/target.txt`, `${f.root}/leaf`);
    for (const path of ["out/new.txt", "out/deeper/new.txt", "leaf"]) {
      for (const append of [false, true]) {
        const error = await assertRejects(() => writeInRoots(path, "x", [f.root], { append }));
        assert(error instanceof PathError, `${path}: ${error}`);
        assertMatch(error.message, /leads outside/);
      }
    }
    assertEquals(await tree(f.outside), ["target.txt"]);
    assertEquals(await Deno.readTextFile(`${f.outside}/target.txt`), "untouched");
  });
});

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
