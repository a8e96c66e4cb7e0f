/**
 * The page's Backups view in a real browser against a real `hob serve`: the
 * schedule as hob.yaml sets it, "Back up now" making one into the folder, and
 * the last backup shown after it.
 */

import { join } from "node:path";
import { listBackups } from "../../src/backup/folder.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

Deno.test("the page's Backups view shows the schedule and backs up now", async () => {
  await using model = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    "memory: { embedder: none }\nbackup: { every: 7d, keep: 3 }",
  ));
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } }))
    .newPage();
  const problems = pageProblems(page);
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.click('a[data-view="backups"]');
  await page.locator("#panel h1", { hasText: "Backups" }).waitFor();
  assertMatch(
    await page.locator("#panel > p").first().textContent() ?? "",
    /Every 7d while hob serve runs, keeping the newest 3; the next at .*\. Into .*backups\./,
  );
  assertStringIncludes(
    await page.locator('[data-backup="last"]').textContent() ?? "",
    "None made yet",
  );

  await page.click('#panel button:has-text("Back up now")');
  await page.locator("#panel [role=status]", { hasText: "Backed up to" }).waitFor();
  const [name] = await listBackups(join(home.home, "backups"));
  assertStringIncludes(await page.locator('[data-backup="last"]').textContent() ?? "", name);
  // The view has its own address.
  await page.goto(`${hob.url}/backups`);
  await page.locator('[data-backup="last"]', { hasText: name }).waitFor();
  assertEquals(problems, []);
});
