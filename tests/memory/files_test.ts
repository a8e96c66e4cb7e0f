import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { MemoryFiles, MemoryWriteError } from "../../src/memory/files.ts";
import type { WrittenBy } from "../../src/store/versions.ts";
import { runHobCode } from "../helpers/hob_process.ts";

const BY: WrittenBy = { author: "owner", via: "test" };

const NOW = new Date(2026, 10, 22, 9, 30);

async function tempFiles() {
  const dir = await Deno.makeTempDir({ prefix: "hob-memfiles-" });
  await Deno.writeTextFile(
    `${dir}/MEMORY.md`,
    "# Memory\n\nIntro.\n\n## Facts\n\n## Instructions\n\n- Be brief.\n",
  );
  return {
    dir,
    files: new MemoryFiles({ dir, now: () => NOW }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("MemoryFiles.remember adds timestamped entries to the Facts section", async () => {
  await using t = await tempFiles();
  await t.files.remember("Grace lives in Lisbon.", BY);
  await t.files.remember("Ada prefers tea.\nGreen, not black.", BY);
  assertEquals(
    await Deno.readTextFile(`${t.dir}/MEMORY.md`),
    "# Memory\n\nIntro.\n\n## Facts\n\n- [2026-11-22 09:30] Grace lives in Lisbon.\n- [2026-11-22 09:30] Ada prefers tea.\n  Green, not black.\n\n## Instructions\n\n- Be brief.\n",
  );
  await assertRejects(() => t.files.remember("   ", BY));
  const error = await assertRejects(() => t.files.remember("x".repeat(10_001), BY));
  assert(error instanceof MemoryWriteError);
});

Deno.test("MemoryFiles.logNote writes today's log, creating it", async () => {
  await using t = await tempFiles();
  assertEquals(await t.files.logNote("Called the plumber.", BY), "2026-11-22.md");
  await t.files.logNote("- Fixed the sink\n- Paid 80 EUR", BY, { heading: 'Summary of "House"' });
  assertEquals(
    await Deno.readTextFile(`${t.dir}/2026-11-22.md`),
    '# 2026-11-22\n- 09:30 Called the plumber.\n\n## 09:30 Summary of "House"\n\n- Fixed the sink\n- Paid 80 EUR\n',
  );
});

Deno.test("MemoryFiles.writeSection replaces one section or adds it", async () => {
  await using t = await tempFiles();
  await t.files.writeSection("instructions", "- Answer in French.", BY);
  await t.files.writeSection("Projects", "- hob", BY);
  assertEquals(
    await Deno.readTextFile(`${t.dir}/MEMORY.md`),
    "# Memory\n\nIntro.\n\n## Facts\n\n## Instructions\n\n- Answer in French.\n\n## Projects\n\n- hob\n",
  );
});

Deno.test("MemoryFiles loses no entry to concurrent writers, in one process or two", async (t) => {
  await t.step("ten concurrent remembers and a section rewrite", async () => {
    await using m = await tempFiles();
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => m.files.remember(`fact ${i}`, BY)),
      m.files.writeSection("Instructions", "- Be very brief.", BY),
    ]);
    const text = await Deno.readTextFile(`${m.dir}/MEMORY.md`);
    for (let i = 0; i < 10; i++) assertMatch(text, new RegExp(`fact ${i}\\n`));
    assertMatch(text, /- Be very brief\./);
  });
  await t.step("two writers on the same directory (as two processes would be)", async () => {
    await using m = await tempFiles();
    const other = new MemoryFiles({ dir: m.dir, now: () => NOW });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? m.files : other).remember(`entry ${i}`, BY)),
    );
    const text = await Deno.readTextFile(`${m.dir}/MEMORY.md`);
    assertEquals((text.match(/entry \d+/g) ?? []).length, 20);
    assertEquals([...Deno.readDirSync(m.dir)].filter((e) => e.name.endsWith(".tmp")), []);
  });
  await t.step("two real processes", async () => {
    await using m = await tempFiles();
    const module = new URL("../../src/memory/files.ts", import.meta.url).href;
    const script = `import { MemoryFiles } from "${module}";
      const files = new MemoryFiles({ dir: Deno.args[0], now: () => new Date() });
      await Promise.all(Array.from({ length: 15 }, (_, i) => files.remember(Deno.args[1] + " " + i, { author: "owner", via: "test" })));`;
    const run = (tag: string) => runHobCode(script, { args: [m.dir, tag] });
    const results = await Promise.all([run("alpha"), run("beta")]);
    assert(results.every((r) => r.code === 0), results.map((r) => r.stderr).join("\n"));
    const text = await Deno.readTextFile(`${m.dir}/MEMORY.md`);
    assertEquals((text.match(/alpha \d+/g) ?? []).length, 15);
    assertEquals((text.match(/beta \d+/g) ?? []).length, 15);
  });
});
