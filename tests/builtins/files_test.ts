/** The file tools, run through the registry in real Workers against a real workspace. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";

type R = Awaited<ReturnType<typeof tempRegistry>>;
/** A call from the agent; outside content comes back marked untrusted, and is read unmarked here. */
const call = async (r: R, name: string, args: unknown) => {
  const result = await r.registry.execute({ id: "1", name, arguments: JSON.stringify(args) }, {
    conversation_id: null,
  });
  return { ...result, content: unmark(result.content) };
};

Deno.test("read_file, write_file and edit_file", async (t) => {
  await using r = await tempRegistry();
  await t.step("write_file creates parents and writes", async () => {
    const result = await call(r, "write_file", {
      path: "notes/2026/plan.md",
      content: "line one\nline two\n",
    });
    assertEquals(result, { content: "Wrote 18 bytes to notes/2026/plan.md", is_error: false });
    assertEquals(
      await Deno.readTextFile(`${r.workspace}/notes/2026/plan.md`),
      "line one\nline two\n",
    );
  });
  await t.step("write_file appends", async () => {
    await call(r, "write_file", {
      path: "notes/2026/plan.md",
      content: "line three\n",
      append: true,
    });
    assertEquals(
      await Deno.readTextFile(`${r.workspace}/notes/2026/plan.md`),
      "line one\nline two\nline three\n",
    );
  });
  await t.step("write_file writes a Word document: a zip with word/document.xml", async () => {
    const result = await call(r, "write_file", {
      path: "letters/ada.docx",
      content: "Dear Ada,\nThe engine runs.",
      format: "docx",
    });
    assertMatch(result.content, /^Wrote \d+ bytes to letters\/ada\.docx$/);
    const bytes = await Deno.readFile(`${r.workspace}/letters/ada.docx`);
    assertEquals([...bytes.slice(0, 4)], [0x50, 0x4b, 0x03, 0x04], "a zip archive");
    assertStringIncludes(new TextDecoder("latin1").decode(bytes), "word/document.xml");
    assertMatch(
      (await call(r, "write_file", {
        path: "letters/ada.docx",
        content: "x",
        format: "docx",
        append: true,
      }))
        .content,
      /Cannot append to a Word document/,
    );
  });
  await t.step("read_file reads, and reads a line range", async () => {
    assertEquals(
      (await call(r, "read_file", { path: "notes/2026/plan.md" })).content,
      "line one\nline two\nline three\n",
    );
    assertEquals(
      (await call(r, "read_file", { path: "notes/2026/plan.md", offset: 2, limit: 1 })).content,
      "line two",
    );
  });
  await t.step("read_file caps at 50,000 characters and says how to go on", async () => {
    await Deno.writeTextFile(`${r.workspace}/big.txt`, "y".repeat(80_000));
    const result = await call(r, "read_file", { path: "big.txt" });
    assert(result.content.length <= 50_000, String(result.content.length));
    assertMatch(result.content, /big\.txt continues: 80000 characters in all; read on with offset/);
  });
  await t.step("read_file refuses binary files and directories", async () => {
    await Deno.writeFile(`${r.workspace}/blob.bin`, new Uint8Array([1, 0, 2, 3]));
    assertMatch((await call(r, "read_file", { path: "blob.bin" })).content, /is a binary file/);
    assertMatch(
      (await call(r, "read_file", { path: "notes" })).content,
      /is a directory; use list_directory/,
    );
  });
  await t.step("edit_file replaces the first occurrence only", async () => {
    await Deno.writeTextFile(`${r.workspace}/e.txt`, "a b a b");
    assertEquals(await call(r, "edit_file", { path: "e.txt", old_text: "b", new_text: "B" }), {
      content: "Edited e.txt at line 1",
      is_error: false,
    });
    assertEquals(await Deno.readTextFile(`${r.workspace}/e.txt`), "a B a b");
  });
  await t.step("edit_file fails when the file or the text is missing", async () => {
    assertMatch(
      (await call(r, "edit_file", { path: "nope.txt", old_text: "x", new_text: "y" })).content,
      /Cannot edit: .*does not exist/,
    );
    assertMatch(
      (await call(r, "edit_file", { path: "e.txt", old_text: "zzz", new_text: "y" })).content,
      /not found in e\.txt; nothing changed/,
    );
  });
  await t.step("nothing outside the workspace", async () => {
    const outside = await Deno.makeTempDir();
    try {
      await Deno.symlink(outside, `${r.workspace}/out`);
      for (
        const [name, args] of [
          ["write_file", { path: "out/x.txt", content: "x" }],
          ["write_file", { path: "../token", content: "x" }],
          ["read_file", { path: `${r.home}/token` }],
          ["edit_file", { path: "../hob.yaml", old_text: "model", new_text: "x" }],
        ] as const
      ) {
        const result = await call(r, name, args);
        assert(result.is_error, `${name} ${JSON.stringify(args)}: ${result.content}`);
      }
      assertEquals([...Deno.readDirSync(outside)], []);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("list_directory, search_files and search_in_files", async (t) => {
  await using r = await tempRegistry();
  await Deno.mkdir(`${r.workspace}/docs/deep`, { recursive: true });
  await Deno.writeTextFile(
    `${r.workspace}/docs/readme.md`,
    "Hello World\nsecond line mentions world too\n",
  );
  await Deno.writeTextFile(`${r.workspace}/docs/deep/notes.md`, "nothing here\nWORLD peace\n");
  await Deno.writeTextFile(`${r.workspace}/docs/deep/data.txt`, "world of text\n");
  await Deno.writeTextFile(`${r.workspace}/big.log`, `world\n${"x".repeat(1_100_000)}`);
  const outside = await Deno.makeTempDir();
  await Deno.writeTextFile(`${outside}/secret.md`, "world secret");
  await Deno.symlink(outside, `${r.workspace}/docs/link`);

  await t.step(
    "list_directory: directories first, sizes, symlinks shown not followed",
    async () => {
      const result = await call(r, "list_directory", { path: "docs" });
      assertEquals(
        result.content,
        "docs: 3 entries\ndeep/\nlink -> " + outside + "\nreadme.md  (43 B)",
      );
    },
  );
  await t.step(
    "search_files: globs, at any depth for bare names, never through links",
    async () => {
      assertEquals(
        (await call(r, "search_files", { pattern: "*.md" })).content,
        "docs/deep/notes.md\ndocs/readme.md",
      );
      assertEquals(
        (await call(r, "search_files", { pattern: "docs/*.md" })).content,
        "docs/readme.md",
      );
      assertMatch((await call(r, "search_files", { pattern: "*.pdf" })).content, /^No files match/);
    },
  );
  await t.step(
    "search_in_files: case-insensitive, file:line: text, extension filter, big files skipped",
    async () => {
      const all = (await call(r, "search_in_files", { query: "world" })).content;
      assertStringIncludes(all, "docs/readme.md:1: Hello World");
      assertStringIncludes(all, "docs/readme.md:2: second line mentions world too");
      assertStringIncludes(all, "docs/deep/notes.md:2: WORLD peace");
      assertStringIncludes(all, "(1 file(s) over 1 MB skipped)");
      assert(!all.includes("secret"), "followed a symlink out");
      const md = (await call(r, "search_in_files", { query: "world", extensions: ["md"] })).content;
      assert(!md.includes("data.txt"));
      assertStringIncludes(md, "notes.md");
    },
  );
  await t.step("search_in_files stops at 50 matches", async () => {
    await Deno.writeTextFile(`${r.workspace}/many.txt`, "needle\n".repeat(80));
    const result = (await call(r, "search_in_files", { query: "needle" })).content;
    assertEquals(result.split("\n").filter((l) => l.includes(":")).length, 50);
    assertStringIncludes(result, "stopped at 50 matches");
  });
  await Deno.remove(outside, { recursive: true });
});

Deno.test("read_csv, read_json and query_json", async (t) => {
  await using r = await tempRegistry();
  const rows = Array.from({ length: 30 }, (_, i) => `${i},name ${i},"a | b"`);
  await Deno.writeTextFile(`${r.workspace}/people.csv`, `id,name,note\n${rows.join("\n")}\n`);
  await Deno.writeTextFile(
    `${r.workspace}/data.json`,
    JSON.stringify({ users: [{ name: "Ada", tags: ["x"] }, { name: "Linus" }] }),
  );
  await Deno.writeTextFile(`${r.workspace}/broken.json`, "{oops");

  await t.step("read_csv: a Markdown table of the first rows and the total", async () => {
    const result = (await call(r, "read_csv", { path: "people.csv", max_rows: 2 })).content;
    assertEquals(
      result,
      "| id | name | note |\n| --- | --- | --- |\n| 0 | name 0 | a \\| b |\n| 1 | name 1 | a \\| b |\n\n30 rows in total (plus the header); showing 2.",
    );
    assertMatch((await call(r, "read_csv", { path: "people.csv" })).content, /showing 20\.$/);
  });
  await t.step("read_json pretty-prints", async () => {
    const result = (await call(r, "read_json", { path: "data.json" })).content;
    assertEquals(
      result,
      JSON.stringify({ users: [{ name: "Ada", tags: ["x"] }, { name: "Linus" }] }, null, 2),
    );
    assertMatch(
      (await call(r, "read_json", { path: "broken.json" })).content,
      /broken\.json is not valid JSON/,
    );
  });
  await t.step("query_json picks by dot path and wildcard", async () => {
    assertEquals(
      (await call(r, "query_json", { path: "data.json", query: "users.0.name" })).content,
      '"Ada"',
    );
    assertEquals(
      (await call(r, "query_json", { path: "data.json", query: "users.*.name" })).content,
      '[\n  "Ada",\n  "Linus"\n]',
    );
    assertEquals(
      (await call(r, "query_json", { path: "data.json", query: "users.5" })).content,
      "Nothing at 'users.5'",
    );
  });
});

Deno.test("run_code computes in a sandbox with no access, and reports errors", async () => {
  await using r = await tempRegistry();
  const ok = await call(r, "run_code", {
    code: "const xs = [1, 2, 3];\nconsole.log(xs.map((x) => x * 2));\nexport default xs.length;",
  });
  assertEquals(ok, { content: "[ 2, 4, 6 ]\ndefault export: 3", is_error: false });
  const escape = await call(r, "run_code", {
    code: "console.log(await Deno.readTextFile('/etc/hostname'))",
  });
  assertMatch(escape.content, /error: .*(Requires read access|NotCapable)/);
  const thrown = await call(r, "run_code", {
    code: "throw new RangeError('nope')",
    language: "javascript",
  });
  assertEquals(thrown.content, "error: RangeError: nope");
});

Deno.test("run_python runs when approved, under the shell policy", async (t) => {
  await t.step("asks, then runs", async () => {
    await using r = await tempRegistry({ policies: {} });
    const events: unknown[] = [];
    const pending = r.registry.execute(
      {
        id: "p",
        name: "run_python",
        arguments: JSON.stringify({ code: "import os\nprint(6 * 7)\nprint(os.getcwd())" }),
      },
      { conversation_id: null, emit: (e) => events.push(e) },
    );
    while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    r.approvals.decide((events[0] as { approval_id: string }).approval_id, "approve");
    const result = await pending;
    assertEquals({ ...result, content: unmark(result.content) }, {
      content: `exit code: 0\n--- stdout ---\n42\n${r.workspace}\n`,
      is_error: false,
    });
  });
  await t.step("denied outright under 'allowlist'", async () => {
    await using r = await tempRegistry({
      settings: { run_python: { shell: { policy: "allowlist" } } },
    });
    const result = await call(r, "run_python", { code: "print(1)" });
    assertMatch(result.content, /Denied by the user's policy: the shell policy is 'allowlist'/);
  });
});
