/** Read-only commands ask a `hob serve` already running on their home, instead of opening it. */

import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";

Deno.test("hob status asks the running hob serve, and opens the home itself once it has stopped", async () => {
  await using fake = startFakeOpenAI();
  // No embedder: a server still embedding its templates would change the memory figures
  // between the two reports compared below.
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const h = ["--home", home.home];
  {
    await using hob = await startHob(home.home);
    const text = await runHob(["status", ...h]);
    assertEquals(text.code, 0, text.stderr);
    assertMatch(text.stdout, new RegExp(`server +running at ${hob.url.replaceAll(".", "\\.")}`));
    assertMatch(text.stdout, new RegExp(`\\(as hob serve, pid ${hob.process.pid}, sees it\\)\\n$`));

    // The same report as the API's, field for field (times aside).
    const json = await runHob(["status", "--json", ...h]);
    assertEquals(json.code, 0, json.stderr);
    const asked = JSON.parse(json.stdout);
    const api = await (await hob.fetch("/api/status")).json();
    // A worker's seen_at moves on each beat, which may fall between the two reports.
    const beatless = (workers: { seen_at?: string }[]) =>
      workers.map(({ seen_at: _, ...worker }) => worker);
    asked.workers = beatless(asked.workers);
    api.workers = beatless(api.workers);
    for (const key of ["home", "server", "model", "tasks", "workers", "memory", "mcp"]) {
      assertEquals(asked[key], api[key], key);
    }
    assertEquals(await hob.stop(), 0);
  }
  const after = await runHob(["status", ...h]);
  assertEquals(after.code, 0, after.stderr);
  assertMatch(after.stdout, /server +not running/);
  assert(!after.stdout.includes("as hob serve"), after.stdout);
});

Deno.test("hob tool list and hob cron list ask the running hob serve, with the same answers", async () => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(fakeProviderYaml(fake.url));
  const h = ["--home", home.home];
  const added = await runHob(["cron", "add", "tidy", "every 1h", "Tidy the notes", ...h]);
  assertEquals(added.code, 0, added.stderr);
  const here = {
    tools: await runHob(["tool", "list", "--json", ...h]),
    cron: await runHob(["cron", "list", "--json", ...h]),
  };
  await using hob = await startHob(home.home);
  const asked = {
    tools: await runHob(["tool", "list", "--json", ...h]),
    cron: await runHob(["cron", "list", "--json", ...h]),
  };
  assertEquals(JSON.parse(asked.tools.stdout), JSON.parse(here.tools.stdout));
  const job = (r: { stdout: string }) => {
    const { jobs } = JSON.parse(r.stdout);
    return jobs.map((j: Record<string, unknown>) => [j.name, j.schedule, j.enabled, j.next_run]);
  };
  assertEquals(job(asked.cron), job(here.cron));
  // The text says who answered.
  const seen = new RegExp(`\\(as hob serve, pid ${hob.process.pid}, sees it\\)\\n$`);
  for (const args of [["tool", "list"], ["cron", "list"]]) {
    const text = await runHob([...args, ...h]);
    assertEquals(text.code, 0, text.stderr);
    assertMatch(text.stdout, seen);
  }
  assertEquals(await hob.stop(), 0);
  assertMatch((await runHob(["tool", "list", ...h])).stdout, /^(?![\s\S]*as hob serve)/);
});
