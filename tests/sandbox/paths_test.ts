/** resolveInRoots, attacked the ways paths escape sandboxes — with real directories and real symlinks. */

import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import {
  openInRoots,
  PathChangedError,
  PathError,
  readDirInRoots,
  removeIfSame,
  resolveInRoots,
  verifyPathIs,
} from "../../src/sandbox/paths.ts";
import { startSwapper } from "../tools/swapper.ts";

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

Deno.test("openInRoots opens what the check found, and only that", async (t) => {
  await using f = await fixture();
  await Deno.symlink(`${f.outside}/secret.txt`, `${f.root}/escape-file`);
  await t.step("reads through the handle, named by its real path", async () => {
    using opened = await openInRoots("notes/todo.md", [f.root]);
    assertEquals(opened.path, `${f.root}/notes/todo.md`);
    assert(opened.info.isFile && !opened.created);
    assertEquals(new TextDecoder().decode(await readAllOf(opened.file)), "todo");
  });
  await t.step("refuses a link out, as the check does", async () => {
    const error = await assertRejects(() => openInRoots("escape-file", [f.root]));
    assert(error instanceof PathError, String(error));
    assertMatch(error.message, /symbolic link that leads outside/);
  });
  await t.step("creates a file only when asked, and says so", async () => {
    await assertRejects(() => openInRoots("notes/new.txt", [f.root]));
    using created = await openInRoots("notes/new.txt", [f.root], { write: true, createNew: true });
    assert(created.created);
    await created.file.write(new TextEncoder().encode("new"));
    assertEquals(await Deno.readTextFile(`${f.root}/notes/new.txt`), "new");
    const again = await assertRejects(() =>
      openInRoots("notes/new.txt", [f.root], { write: true, createNew: true })
    );
    assertMatch(String(again), /already exists/);
  });
  await t.step("refuses what is not a regular file or directory (a FIFO would block)", async () => {
    const made = await new Deno.Command("mkfifo", { args: [`${f.root}/pipe`] }).output()
      .catch(() => null);
    if (!made?.success) return; // no mkfifo here: nothing to test
    const error = await assertRejects(() => openInRoots("pipe", [f.root]));
    assertMatch(String(error), /not a regular file or directory/);
  });
});

Deno.test("verifyPathIs tells an opened file from what the path names after a swap", async (t) => {
  await using f = await fixture();
  await Deno.mkdir(`${f.root}/box`);
  await Deno.writeTextFile(`${f.root}/box/secret.txt`, "inside");
  await Deno.mkdir(`${f.outside}/box`);
  await Deno.writeTextFile(`${f.outside}/box/secret.txt`, "secret");
  const inside = await Deno.stat(`${f.root}/box/secret.txt`);
  const outside = await Deno.stat(`${f.outside}/box/secret.txt`);
  const path = `${f.root}/box/secret.txt`;
  const swapToLink = async () => {
    await Deno.rename(`${f.root}/box`, `${f.root}/parked`);
    await Deno.symlink(`${f.outside}/box`, `${f.root}/box`);
  };
  const swapBack = async () => {
    await Deno.remove(`${f.root}/box`);
    await Deno.rename(`${f.root}/parked`, `${f.root}/box`);
  };
  await t.step("the file checked, still in place, passes", () => {
    verifyPathIs(path, inside, [f.root]);
  });
  await t.step("an outside file opened through the link, the link still there", async () => {
    await swapToLink();
    try {
      // The leaf now reads as the outside file; the directory above it is a link.
      assertThrowsChanged(() => verifyPathIs(path, outside, [f.root]));
      assertThrowsChanged(() => verifyPathIs(path, inside, [f.root]));
    } finally {
      await swapBack();
    }
  });
  await t.step("an outside file opened through the link, swapped back since", () => {
    assertThrowsChanged(() => verifyPathIs(path, outside, [f.root]));
  });
  await t.step("a path outside every root", () => {
    assertThrowsChanged(() => verifyPathIs(`${f.outside}/box/secret.txt`, outside, [f.root]));
  });
});

Deno.test("openInRoots never returns an outside file while a directory is swapped for a link", async () => {
  await using f = await fixture();
  await Deno.mkdir(`${f.root}/box`);
  await Deno.writeTextFile(`${f.root}/box/secret.txt`, "inside");
  await Deno.mkdir(`${f.outside}/box`);
  await Deno.writeTextFile(`${f.outside}/box/secret.txt`, "SECRET");
  await Deno.symlink(`${f.outside}/box`, `${f.root}/parked-link`);
  const swapper = await startSwapper(
    `${f.root}/box`,
    `${f.root}/parked-dir`,
    `${f.root}/parked-link`,
  );
  // In this process Deno may read anywhere, so only the identity checks stand in the way.
  const counts = { secret: 0, inside: 0, refused: 0 };
  try {
    for (let i = 0; i < 3_000; i++) {
      try {
        using opened = await openInRoots("box/secret.txt", [f.root]);
        const text = new TextDecoder().decode(await readAllOf(opened.file));
        counts[text === "SECRET" ? "secret" : "inside"]++;
      } catch (error) {
        assert(error instanceof PathError, String(error));
        counts.refused++;
      }
    }
  } finally {
    const cycles = await swapper.stop();
    console.log(`openInRoots during ${cycles} swap cycles: ${JSON.stringify(counts)}`);
  }
  assertEquals(counts.secret, 0, JSON.stringify(counts));
  assert(counts.refused > 0, "the swap never got in the way: the race was not live");
});

Deno.test("readDirInRoots lists a checked directory, with details on request", async (t) => {
  await using f = await fixture();
  await Deno.symlink(f.outside, `${f.root}/escape-dir`);
  await t.step("names, and lstat and link targets with details", async () => {
    const listing = await readDirInRoots(".", [f.root], { details: true });
    assertEquals(listing.path, f.root);
    const byName = new Map(listing.entries.map((entry) => [entry.name, entry]));
    assertEquals([...byName.keys()].sort(), ["escape-dir", "notes"]);
    assertEquals(byName.get("escape-dir")?.target, f.outside);
    assert(byName.get("notes")?.info?.isDirectory);
  });
  await t.step("refuses a link out and a file", async () => {
    assertMatch(
      String(await assertRejects(() => readDirInRoots("escape-dir", [f.root]))),
      /leads outside/,
    );
    assertMatch(
      String(await assertRejects(() => readDirInRoots("notes/todo.md", [f.root]))),
      /is not a directory/,
    );
  });
});

Deno.test("removeIfSame removes only the very file it was given", async () => {
  await using f = await fixture();
  const path = `${f.root}/notes/todo.md`;
  const original = await Deno.lstat(path);
  await Deno.rename(path, `${f.root}/notes/moved.md`);
  await Deno.writeTextFile(path, "someone else's file now");
  await removeIfSame(path, original);
  assertEquals(await Deno.readTextFile(path), "someone else's file now");
  await removeIfSame(`${f.root}/notes/moved.md`, original);
  await assertRejects(() => Deno.lstat(`${f.root}/notes/moved.md`));
});

function assertThrowsChanged(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    assert(error instanceof PathChangedError, String(error));
    return;
  }
  throw new Error("expected a PathChangedError");
}

async function readAllOf(file: Deno.FsFile): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  for (let n = await file.read(buffer); n !== null; n = await file.read(buffer)) {
    chunks.push(buffer.slice(0, n));
  }
  return new Uint8Array(chunks.flatMap((chunk) => [...chunk]));
}
