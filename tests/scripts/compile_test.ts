/**
 * The release build's plan, without building: every Worker entry is embedded,
 * the binary gets the `hob` task's flags, and the bundle's Worker URLs and
 * module paths are rewritten as the compile-readiness check needs.
 */

import { assert, assertEquals, assertStringIncludes, assertThrows } from "../helpers/assert.ts";
import { join, relative } from "node:path";
import { HOB_FLAGS } from "../helpers/hob_process.ts";
import { compileArgs, ROOT, TARGETS, WORKER_ENTRIES } from "../../scripts/compile.ts";
import { defineModulePaths, rewriteWorkerUrls } from "../../scripts/compile_check.ts";

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("WORKER_ENTRIES names every module src/ starts by URL", async () => {
  const started: string[] = [];
  for await (const file of sourceFiles(join(ROOT, "src"))) {
    const text = await Deno.readTextFile(file);
    for (
      const [, specifier] of text.matchAll(/new URL\("(\.{1,2}\/[^"]+\.ts)", import\.meta\.url\)/g)
    ) {
      started.push(relative(ROOT, join(file, "..", specifier)));
    }
  }
  assert(started.length > 0, "no Worker entry found: has the pattern changed?");
  assertEquals([...new Set(started)].sort(), [...WORKER_ENTRIES].sort());
  for (const entry of WORKER_ENTRIES) await Deno.stat(join(ROOT, entry));
});

Deno.test("compileArgs bakes in the hob task's flags and embeds the Workers", () => {
  const args = compileArgs("x86_64-pc-windows-msvc");
  assertEquals(args.slice(1, 1 + HOB_FLAGS.length), HOB_FLAGS);
  for (const entry of WORKER_ENTRIES) assertStringIncludes(args.join(" "), `--include ${entry}`);
  assertStringIncludes(args.join(" "), "--target x86_64-pc-windows-msvc");
  assert(args[args.indexOf("--output") + 1].endsWith("dist/hob-x86_64-pc-windows-msvc.exe"));
  assertEquals(args.at(-1), "main.ts");
  assertEquals(TARGETS.length, 5);
});

Deno.test("rewriteWorkerUrls points each Worker URL at that Worker's bundle", async (t) => {
  await t.step("from main.js at the bundle's root", () => {
    const text =
      'a(new URL("./worker_entry.ts", import.meta.url)); b(new URL("./use_lite_worker.ts", ' +
      "import.meta.url));";
    assertEquals(
      rewriteWorkerUrls(text, "main.js"),
      'a(new URL("./src/builtins/worker_entry.js", import.meta.url)); ' +
        'b(new URL("./src/memory/use_lite_worker.js", import.meta.url));',
    );
  });
  await t.step("from a bundle in a subfolder", () => {
    assertEquals(
      rewriteWorkerUrls(
        'new URL("./worker_entry.ts", import.meta.url)',
        "src/memory/use_lite_worker.js",
      ),
      'new URL("../builtins/worker_entry.js", import.meta.url)',
    );
  });
  await t.step("an entry not in WORKER_ENTRIES fails the check", () => {
    assertThrows(
      () => rewriteWorkerUrls('new URL("./other_worker.ts", import.meta.url)', "main.js"),
      Error,
      "not one of WORKER_ENTRIES",
    );
  });
});

Deno.test("defineModulePaths defines __dirname only where a bundle uses it", async () => {
  assertEquals(defineModulePaths("console.log(1);"), "console.log(1);");
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "probe.js");
    await Deno.writeTextFile(
      file,
      defineModulePaths("export const paths = [__dirname, __filename];"),
    );
    const { paths } = await import(`file://${file}`);
    assertEquals(paths, [await Deno.realPath(dir), await Deno.realPath(file)]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
