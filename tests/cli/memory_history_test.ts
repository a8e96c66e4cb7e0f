/** `hob memory history`, `diff`, `revert` and `undo` as a user types them. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";

Deno.test("hob memory history lists the writes; diff shows one; undo and revert put it back", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  const memory = () => Deno.readTextFile(`${home.home}/memory/MEMORY.md`);
  const before = await memory();
  assertEquals((await runHob(["memory", "remember", "Grace lives in Lisbon.", ...h])).code, 0);
  await Deno.writeTextFile(
    `${home.home}/memory/MEMORY.md`,
    `${await memory()}- The boiler service is due in March.\n`,
  );
  assertEquals((await runHob(["memory", "log", "Called the plumber.", ...h])).code, 0);

  const listed = await runHob(["memory", "history", "MEMORY.md", "--json", ...h]);
  assertEquals(listed.code, 0, listed.stderr);
  const versions = JSON.parse(listed.stdout).versions as {
    id: number;
    author: string;
    via: string;
  }[];
  // The hand edit is seen at the next start, as the owner's.
  assertEquals(versions.map((v) => `${v.author} ${v.via}`), [
    "owner editor",
    "owner cli",
    "owner on disk",
  ]);
  const [, remembered, found] = versions;

  const text = await runHob(["memory", "history", ...h]);
  assertMatch(
    text.stdout,
    new RegExp(`^\\s+${remembered.id}  .* owner\\s+\\(cli\\)  memory/MEMORY\\.md`, "m"),
  );

  const diff = await runHob(["memory", "diff", String(remembered.id), ...h]);
  assertEquals(diff.code, 0, diff.stderr);
  assertMatch(diff.stdout, /^\+- \[\d{4}-\d\d-\d\d \d\d:\d\d\] Grace lives in Lisbon\.$/m);

  const undo = await runHob(["memory", "undo", String(remembered.id), ...h]);
  assertEquals(undo.code, 0, undo.stderr);
  assertStringIncludes(undo.stdout, `without the change of version ${remembered.id}`);
  const undone = await memory();
  assert(!undone.includes("Grace"), undone);
  assertStringIncludes(undone, "- The boiler service is due in March.");

  const revert = await runHob(["memory", "revert", String(found.id), ...h]);
  assertEquals(revert.code, 0, revert.stderr);
  assertEquals(await memory(), before);
  const search = await runHob(["memory", "search", "boiler service", ...h]);
  assertStringIncludes(search.stdout, "Nothing in memory matches");
});

Deno.test("hob memory history, diff and revert refuse bad input with one line", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  for (
    const [args, code, message] of [
      [["memory", "diff", "abc"], 2, /^hob memory diff: 'from': must be a version number\n$/],
      [["memory", "revert"], 2, /^hob memory revert: missing argument/],
      [
        ["memory", "history", "hob.yaml"],
        2,
        /^hob memory history: hob keeps no versions of 'hob\.yaml'/,
      ],
      [["memory", "revert", "9999"], 1, /^hob: No version 9999\n$/],
    ] as const
  ) {
    const result = await runHob([...args, ...h]);
    assertEquals(result.code, code, `${args.join(" ")}: ${result.stderr}`);
    assertMatch(result.stderr, message);
  }
});

Deno.test("hob memory undo of a remember keeps the one after it, and history says it undid it", async () => {
  await using home = await tempHome("memory: { embedder: none }\n");
  const h = ["--home", home.home];
  assertEquals((await runHob(["memory", "remember", "The boat is in dock 4.", ...h])).code, 0);
  assertEquals((await runHob(["memory", "remember", "Ada's birthday is 3 May.", ...h])).code, 0);
  const listed = await runHob(["memory", "history", "MEMORY.md", "--json", ...h]);
  const [, first] = JSON.parse(listed.stdout).versions as { id: number }[];
  const undone = await runHob(["memory", "undo", String(first.id), ...h]);
  assertEquals(undone.code, 0, undone.stderr);
  const text = await Deno.readTextFile(`${home.home}/memory/MEMORY.md`);
  assert(!text.includes("dock 4"), text);
  assertStringIncludes(text, "Ada's birthday is 3 May.");
  const history = await runHob(["memory", "history", "MEMORY.md", ...h]);
  assertMatch(history.stdout, new RegExp(`\\(cli undo\\)  undid version ${first.id}\\n`));
});
