/**
 * ensureHome: a new home is made whole; a whole one is seen at once and its
 * token kept private; examples the owner deleted stay deleted.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { ensureHome } from "../../src/home/home.ts";

Deno.test("ensureHome makes a home whole, and a whole one is left as it is", async (t) => {
  const home = `${await Deno.makeTempDir({ prefix: "hob-home-" })}/h`;
  try {
    await t.step("a new home: every directory and file, the token private", async () => {
      const { created } = await ensureHome(home);
      assert(created.includes(".") && created.includes("token") && created.includes("hob.yaml"));
      assertEquals((await Deno.stat(`${home}/token`)).mode! & 0o777, 0o600);
    });
    await t.step("a whole home: nothing created, the token kept, its mode put back", async () => {
      const token = await Deno.readTextFile(`${home}/token`);
      await Deno.chmod(`${home}/token`, 0o644);
      assertEquals((await ensureHome(home)).created, []);
      assertEquals(await Deno.readTextFile(`${home}/token`), token);
      assertEquals((await Deno.stat(`${home}/token`)).mode! & 0o777, 0o600);
    });
    await t.step("a home missing a directory gets it back, and nothing else changes", async () => {
      await Deno.remove(`${home}/uploads`);
      await Deno.writeTextFile(`${home}/hob.yaml`, "model: x/y\n");
      assertEquals((await ensureHome(home)).created, ["uploads/"]);
      assertEquals(await Deno.readTextFile(`${home}/hob.yaml`), "model: x/y\n");
    });
    await t.step(
      "an example the owner deleted stays deleted; a lost identity file comes back",
      async () => {
        await Deno.remove(`${home}/tools/roll_dice.ts`);
        await Deno.remove(`${home}/skills/press_release.ts`);
        await Deno.remove(`${home}/identity/USER.md`);
        assertEquals((await ensureHome(home)).created, ["identity/USER.md"]);
        assertEquals((await ensureHome(home)).created, []);
        assertEquals(
          [...Deno.readDirSync(`${home}/tools`)].map((entry) => entry.name),
          ["word_count.ts"],
        );
      },
    );
    await t.step("a tools directory hob makes again comes with its examples", async () => {
      await Deno.remove(`${home}/tools`, { recursive: true });
      assertEquals((await ensureHome(home)).created, [
        "tools/",
        "tools/roll_dice.ts",
        "tools/word_count.ts",
      ]);
    });
  } finally {
    await Deno.remove(home.slice(0, -2), { recursive: true });
  }
});
