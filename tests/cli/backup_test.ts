/**
 * `hob backup` and `hob restore` as a user runs them (the `hob` task's flags):
 * what they print, and their refusals as one line with exit 1 (exit 2 for bad
 * usage).
 */

import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { pathExists, tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";

const CONFIG = `model: fake/m
providers:
  fake: { type: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-cli-123456789 }
memory: { embedder: none }
`;

Deno.test("hob backup and hob restore", async (t) => {
  await using home = await tempHome(CONFIG);
  const root = join(home.home, "..", `hob-cli-${crypto.randomUUID().slice(0, 8)}`);
  await Deno.mkdir(root);
  try {
    let file = "";

    await t.step(
      "hob backup writes a dated archive into backups/ and says what it left out",
      async () => {
        const result = await runHob(["backup", "--home", home.home]);
        assertEquals(result.code, 0, result.stderr);
        const match = /^Backed up .* to (\S+hob-backup-[\dTZ-]+\.tar\.gz)\n/.exec(result.stdout);
        assert(match, result.stdout);
        file = match[1];
        assert(file.startsWith(join(home.home, "backups")), file);
        assertStringIncludes(
          result.stdout,
          "Without secrets: left out the API token and hob.yaml's providers.fake.api_key",
        );
      },
    );

    await t.step("a file that exists: exit 1, one line", async () => {
      const result = await runHob(["backup", file, "--home", home.home]);
      assertEquals(result.code, 1);
      assertMatch(result.stderr, /^hob: .* exists — choose another name, or delete it\n$/);
    });

    await t.step("a bad flag: exit 2", async () => {
      const result = await runHob(["backup", "--secrets", "--home", home.home]);
      assertEquals(result.code, 2, result.stderr);
    });

    await t.step("hob restore into a new home: checked, and what to put back", async () => {
      const target = join(root, "restored");
      const result = await runHob(["restore", file, "--home", target]);
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(result.stdout, "every one as the manifest says");
      assertMatch(result.stdout, /database: schema \d+, integrity ok/);
      assertStringIncludes(
        result.stdout,
        "hob made a new API token; set these in hob.yaml again (they say <redacted>): providers.fake.api_key",
      );
      assertStringIncludes(result.stdout, `Start it: hob serve --home ${target}`);
    });

    await t.step("a home that holds something: exit 1, untouched", async () => {
      const result = await runHob(["restore", file, "--home", home.home]);
      assertEquals(result.code, 1);
      assertMatch(
        result.stderr,
        /^hob: .* is not empty — restore into a new directory, or add --force/,
      );
    });

    await t.step("a damaged archive: exit 1 naming it, no home made", async () => {
      const bytes = await Deno.readFile(file);
      const cut = join(root, "cut.tar.gz");
      await Deno.writeFile(cut, bytes.slice(0, bytes.length - 100));
      const target = join(root, "from-cut");
      const result = await runHob(["restore", cut, "--home", target]);
      assertEquals(result.code, 1);
      assertMatch(result.stderr, /^hob: .*cut\.tar\.gz is damaged or cut short/);
      assert(!(await pathExists(target)), "no home is made from a damaged archive");
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
