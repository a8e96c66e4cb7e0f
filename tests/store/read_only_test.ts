/**
 * `hob cron list` with no server running reads the jobs from a read-only
 * handle (src/store/read_only.ts) instead of opening the home: what it lists
 * must be what the app's list action gives, and a database it cannot read so
 * must send the command the long way, never to a wrong or empty list.
 */

import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob } from "../helpers/hob_process.ts";
import { readJobViews } from "../../src/store/read_only.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";
import { staticGraph } from "../helpers/graph.ts";

const YAML = fakeProviderYaml("http://127.0.0.1:9/v1", "memory: { embedder: none }");

/** A home with two jobs, one of them run once and failed, and the app's list of them. */
async function homeWithJobs(home: string): Promise<unknown[]> {
  const runtime = await openRuntime({ home, env: {} });
  try {
    const { schedules } = runtime.app;
    schedules.add({ name: "standup", prompt: "Plan my day", schedule: "0 9 * * 1-5" });
    schedules.add({ name: "tides", prompt: "Tides?", schedule: "every 2h", enabled: false });
    // The provider is not there: the run fails, and the list shows its failure.
    await schedules.run({ key: "standup" }).catch(() => {});
    return schedules.list();
  } finally {
    await runtime.close();
  }
}

Deno.test("readJobViews lists what the app's list action does", async () => {
  await using temp = await tempHome(YAML);
  const listed = await homeWithJobs(temp.home);
  assertEquals(listed.length, 2);
  assertEquals(readJobViews(`${temp.home}/hob.db`), listed);
});

Deno.test("readJobViews reads nothing from a database of another version, or none", async () => {
  await using temp = await tempHome(YAML);
  await homeWithJobs(temp.home);
  const path = `${temp.home}/hob.db`;
  const version = (db: DatabaseSync) =>
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA user_version = ${version(db) + 1}`);
  db.close();
  assertEquals(readJobViews(path), undefined, "a newer database");
  assertEquals(readJobViews(`${temp.home}/none.db`), undefined, "no database");
  // Not yet migrated: the command goes the long way, which migrates it, and lists.
  await using fresh = await tempHome(YAML);
  new DatabaseSync(`${fresh.home}/hob.db`).close();
  assertEquals(readJobViews(`${fresh.home}/hob.db`), undefined, "a database before its migrations");
  const list = await runHob(["cron", "list", "--home", fresh.home]);
  assertEquals([list.code, list.stdout], [
    0,
    "No scheduled jobs. Add one with: hob cron add NAME SCHEDULE PROMPT\n",
  ]);
  const migrated = new DatabaseSync(`${fresh.home}/hob.db`);
  assert(version(migrated) > 0, "the long way migrated it");
  migrated.close();
});

Deno.test("hob cron list with no server prints what the app lists", async () => {
  await using temp = await tempHome(YAML);
  const listed = await homeWithJobs(temp.home);
  const result = await runHob(["cron", "list", "--json", "--home", temp.home]);
  assertEquals(result.code, 0, result.stderr);
  assertEquals(JSON.parse(result.stdout).jobs, JSON.parse(JSON.stringify(listed)));
  const text = await runHob(["cron", "list", "--home", temp.home]);
  assertMatch(text.stdout, /standup {2}0 9 \* \* 1-5/);
  assertMatch(text.stdout, /tides {2}every 2h/);
});

Deno.test("readJobViews loads no npm package, the Node layer or the runtime", async () => {
  const graph = await staticGraph("src/store/read_only.ts");
  assertEquals(
    graph.filter((module) =>
      module.startsWith("npm:") || (module.startsWith("node:") && module !== "node:sqlite") ||
      module.startsWith("src/runtime/") || module.startsWith("src/app/")
    ),
    [],
  );
});

Deno.test("hob cron list with no server reads neither hob.yaml nor the rest of the home", async () => {
  // Opening the home would stop at a hob.yaml that does not parse; reading the jobs does not.
  await using temp = await tempHome(YAML);
  await homeWithJobs(temp.home);
  await Deno.writeTextFile(`${temp.home}/hob.yaml`, "model: [unclosed\n");
  const list = await runHob(["cron", "list", "--home", temp.home]);
  assertEquals(list.code, 0, list.stderr);
  assertMatch(list.stdout, /standup {2}0 9 \* \* 1-5/);
  const status = await runHob(["status", "--home", temp.home]);
  // status opens the home, and says what is wrong with hob.yaml.
  assertEquals(status.code, 2, status.stderr);
  assertMatch(status.stderr, /^hob: bad config: .*hob\.yaml:2:1: invalid YAML/);
});
