/** resolveInRoots, attacked the ways paths escape sandboxes — with real directories and real symlinks. */

import { assert, assertEquals, assertMatch, assertRejects } from "../../helpers/assert.ts";
import { PathError, resolveInRoots } from "../../../src/tools/sandbox/paths.ts";

async function fixture() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-paths-" }));
  const root = `${base}/workspace`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/notes`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${root}/notes/todo.md`, "todo");
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  return {
    base,
    root,
    outside,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

async function refused(path: string, roots: string[], pattern: RegExp, allowMissing = false) {
  const error = await assertRejects(() => resolveInRoots(path, roots, { allowMissing }));
  assert(error instanceof PathError, String(error));
  assertMatch(error.message, pattern);
}

Deno.test("resolveInRoots resolves paths inside the roots", async (t) => {
  await using f = await fixture();
  await t.step("relative to the first root", async () => {
    assertEquals(await resolveInRoots("notes/todo.md", [f.root]), `${f.root}/notes/todo.md`);
    assertEquals(
      await resolveInRoots("./notes/../notes/todo.md", [f.root]),
      `${f.root}/notes/todo.md`,
    );
    assertEquals(await resolveInRoots(".", [f.root]), f.root);
  });
  await t.step("absolute inside a root", async () => {
    assertEquals(await resolveInRoots(`${f.root}/notes`, [f.root]), `${f.root}/notes`);
  });
  await t.step("a second root", async () => {
    assertEquals(
      await resolveInRoots(`${f.outside}/secret.txt`, [f.root, f.outside]),
      `${f.outside}/secret.txt`,
    );
  });
  await t.step("a missing file only when asked for", async () => {
    assertEquals(
      await resolveInRoots("new/dir/file.txt", [f.root], { allowMissing: true }),
      `${f.root}/new/dir/file.txt`,
    );
    await refused("new.txt", [f.root], /does not exist/);
  });
  await t.step("Unicode is normalised to NFC", async () => {
    await Deno.writeTextFile(`${f.root}/caf\u00e9.txt`, "x");
    assertEquals(await resolveInRoots("cafe\u0301.txt", [f.root]), `${f.root}/caf\u00e9.txt`);
  });
  await t.step("a symlink that stays inside", async () => {
    await Deno.symlink(`${f.root}/notes`, `${f.root}/notes-link`);
    assertEquals(await resolveInRoots("notes-link/todo.md", [f.root]), `${f.root}/notes/todo.md`);
  });
});

Deno.test("resolveInRoots refuses every way out", async (t) => {
  await using f = await fixture();
  await Deno.symlink(f.outside, `${f.root}/escape-dir`);
  await Deno.symlink(`${f.outside}/secret.txt`, `${f.root}/escape-file`);
  await Deno.symlink("../../outside/secret.txt", `${f.root}/notes/relative-escape`);
  await Deno.symlink(`${f.root}/missing-target`, `${f.root}/dangling`);
  await Deno.symlink(`${f.root}/loop-b`, `${f.root}/loop-a`);
  await Deno.symlink(`${f.root}/loop-a`, `${f.root}/loop-b`);

  await t.step("traversal with ..", async () => {
    await refused("../outside/secret.txt", [f.root], /outside the allowed directories/);
    await refused("notes/../../outside/secret.txt", [f.root], /outside the allowed directories/);
    await refused(`${f.root}/../outside/secret.txt`, [f.root], /outside the allowed directories/);
  });
  await t.step("absolute paths elsewhere", async () => {
    await refused("/etc/passwd", [f.root], /outside the allowed directories/);
    await refused(`${f.outside}/secret.txt`, [f.root], /outside the allowed directories/);
    // A sibling that merely shares the root's name as a prefix.
    await Deno.mkdir(`${f.root}-evil`);
    await refused(`${f.root}-evil`, [f.root], /outside the allowed directories/);
  });
  await t.step("~ is never the home directory", async () => {
    await refused("~/.ssh/id_rsa", [f.root], /starts with '~'/);
    await refused("~", [f.root], /starts with '~'/);
  });
  await t.step("NUL bytes", async () => {
    await refused("notes/todo.md\0.png", [f.root], /contains a NUL byte/);
  });
  await t.step("over-long paths and names", async () => {
    await refused("a/".repeat(2_100), [f.root], /longer than 4096 bytes/);
    await refused("x".repeat(256), [f.root], /name longer than 255 bytes/);
  });
  await t.step("a symlink at the leaf that leads out", async () => {
    await refused("escape-file", [f.root], /symbolic link that leads outside/);
  });
  await t.step("a symlink in the middle that leads out", async () => {
    await refused("escape-dir/secret.txt", [f.root], /symbolic link that leads outside/);
    await refused("escape-dir/new.txt", [f.root], /symbolic link that leads outside/, true);
  });
  await t.step("a relative symlink that climbs out", async () => {
    await refused("notes/relative-escape", [f.root], /symbolic link that leads outside/);
  });
  await t.step("dangling and looping symlinks", async () => {
    await refused("dangling", [f.root], /points nowhere/);
    await refused("loop-a", [f.root], /points nowhere/);
  });
  await t.step("a file used as a directory", async () => {
    await refused(
      "notes/todo.md/x",
      [f.root],
      /not a directory|does not exist|cannot be checked/,
      true,
    );
  });
  await t.step("no roots at all", async () => {
    await refused("a.txt", [], /no directories are allowed/);
  });
});
