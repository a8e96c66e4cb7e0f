/**
 * A CLI command that writes while another program holds hob.db's write lock:
 * one line saying the store is busy and to try again, exit 1, nothing half
 * written — then the same command works once the lock is let go.
 */

import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";
import { holdWriteLock } from "../helpers/hold_lock.ts";

Deno.test("a writing command says hob.db is busy and exits 1 while another program holds its lock", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const h = ["--home", home.home];
  const first = await runHob(["task", "add", "Before the lock", ...h]);
  assertEquals(first.code, 0, first.stderr);

  {
    // Held far longer than the command runs: the command cannot outwait it.
    await using _lock = await holdWriteLock(join(home.home, "hob.db"), 120_000);
    const refused = await runHob(["task", "add", "During the lock", ...h]);
    assertEquals(refused.code, 1, refused.stderr);
    assertMatch(
      refused.stderr,
      /^hob: \S*hob\.db is busy: another program is holding its write lock .* try again in a few seconds\n$/,
    );
    assertEquals(refused.stdout, "");
  }

  const after = await runHob(["task", "add", "After the lock", ...h]);
  assertEquals(after.code, 0, after.stderr);
  const list = await runHob(["task", "list", "--json", ...h]);
  const listed = JSON.parse(list.stdout);
  const tasks = (Array.isArray(listed) ? listed : listed.tasks) as { title: string }[];
  const titles = tasks.map((task) => task.title);
  assertEquals(titles.sort(), ["After the lock", "Before the lock"]);
});
