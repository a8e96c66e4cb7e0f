/** Writing inside the roots (src/sandbox/file_writes.ts): only inside, through verified handles. */

import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { writeInRoots } from "../../src/sandbox/file_writes.ts";
import { PathError } from "../../src/sandbox/paths.ts";

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
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    names.push(prefix + entry.name);
    if (entry.isDirectory) {
      names.push(...await tree(`${dir}/${entry.name}`, `${prefix}${entry.name}/`));
    }
  }
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
