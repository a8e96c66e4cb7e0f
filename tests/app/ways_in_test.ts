/**
 * One action, every way in: the same bad new task (and new job) fed through
 * REST, the page, the CLI (a real `hob` process on the same home) and the
 * tool host is refused by all of them — each in its own wire format, each
 * naming the same field — and none of them queues anything. The host keeps
 * a tainted turn's provenance on what it creates; the other ways cannot.
 */

import { ActionError } from "../../src/app/errors.ts";
import { createServices } from "../../src/runtime/services.ts";
import type { ServiceCallContext } from "../../src/tools/registry.ts";
import { tempApi } from "../helpers/api.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../helpers/assert.ts";
import { type HobResult, runHob } from "../helpers/hob_process.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";
/** `hob` processes at once: each is a `deno run`. */
const CONCURRENCY = 4;

/** One bad input, as each way in spells it, and the field every one must name. */
interface BadInput {
  what: string;
  json: Record<string, unknown>;
  cli: string[];
  /** The REST error's `field`; the host's ActionError names it too. */
  field: string;
  /** The CLI's one line. */
  stderr: RegExp;
}

const LONG_TITLE = "t".repeat(201);
const BAD_TASKS: BadInput[] = [
  {
    what: "a priority past the queue's range",
    json: { title: "t", priority: 1_001 },
    cli: ["t", "--priority", "1001"],
    field: "priority",
    stderr: /^hob task: --priority must be an integer from -1000 to 1000: got '1001'\n$/,
  },
  {
    what: "a priority that is not whole",
    json: { title: "t", priority: 1.5 },
    cli: ["t", "--priority", "1.5"],
    field: "priority",
    stderr: /^hob task: --priority must be an integer/,
  },
  {
    what: "a blocker id no task can have",
    json: { title: "t", blocked_by: [0] },
    cli: ["t", "--blocked-by", "0"],
    field: "blocked_by.0",
    stderr: /^hob task: --blocked-by takes task ids/,
  },
  {
    what: "more blockers than a task may wait for",
    json: { title: "t", blocked_by: Array.from({ length: 101 }, (_, i) => i + 1) },
    cli: ["t", "--blocked-by", Array.from({ length: 101 }, (_, i) => i + 1).join(",")],
    field: "blocked_by",
    stderr: /^hob task: --blocked-by takes task ids such as 3,4 \(at most 100\)/,
  },
  {
    what: "a blocker that does not exist",
    json: { title: "t", blocked_by: [42] },
    cli: ["t", "--blocked-by", "42"],
    field: "blocked_by",
    stderr: /^hob task: blocked_by: there is no task 42\n$/,
  },
  {
    what: "a blank title",
    json: { title: "   " },
    cli: ["   "],
    field: "title",
    stderr: /^hob task add: needs a TITLE/,
  },
  {
    what: "a title past 200 characters",
    json: { title: LONG_TITLE },
    cli: [LONG_TITLE],
    field: "title",
    stderr: /^hob task add: 'title': Too big/,
  },
];

const BAD_JOBS: BadInput[] = [
  {
    what: "a schedule that is none",
    json: { name: "j", prompt: "p", schedule: "every day" },
    cli: ["j", "every day", "p"],
    field: "schedule",
    stderr: /^hob cron: 'every day' is not a schedule/,
  },
  {
    what: "a time zone that is none",
    json: { name: "j", prompt: "p", schedule: "0 9 * * *", timezone: "Mars/Base" },
    cli: ["j", "0 9 * * *", "p", "--timezone", "Mars/Base"],
    field: "timezone",
    stderr: /^hob cron: 'Mars\/Base' is not a time zone/,
  },
  {
    what: "a once: time in the past",
    json: { name: "j", prompt: "p", schedule: "once:2001-01-01T00:00Z" },
    cli: ["j", "once:2001-01-01T00:00Z", "p"],
    field: "schedule",
    stderr: /in the past/,
  },
  {
    what: "a name past 100 characters",
    json: { name: "n".repeat(101), prompt: "p", schedule: "every 1h" },
    cli: ["n".repeat(101), "every 1h", "p"],
    field: "name",
    stderr: /^hob cron add: 'name': Too big/,
  },
];

/** Runs argument lists a few at a time; results in order. */
async function runAll(cases: string[][]): Promise<HobResult[]> {
  const results: HobResult[] = new Array(cases.length);
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runHob(cases[index]);
    }
  }));
  return results;
}

/** What a hob service's refusal was: an ActionError, the model reads its message. */
async function serviceRefusal(call: () => Promise<unknown>): Promise<ActionError> {
  const error = await assertRejects(call);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return error;
}

function serviceContext(tainted?: string): ServiceCallContext {
  return { tool: "create_task", conversation_id: null, depth: 0, tainted, source: "agent" };
}

Deno.test("a bad new task is refused alike by REST, the CLI, the page and the tool services", async (t) => {
  await using api = await tempApi(YAML);
  const { runtime } = api;
  const hob = createServices(runtime.agent, runtime.toolbox, runtime.app);
  const cli = await runAll(
    BAD_TASKS.map((bad) => ["task", "add", ...bad.cli, "--home", api.home.home]),
  );

  for (const [i, bad] of BAD_TASKS.entries()) {
    await t.step(bad.what, async () => {
      const rest = await api.call("/api/tasks", { method: "POST", json: bad.json });
      assertEquals(rest.status, 400);
      const { error } = await rest.json();
      assertEquals([error.code, error.field], ["invalid_request", bad.field]);

      assertEquals(cli[i].code, 2, `hob task add ${bad.cli.join(" ")}: ${cli[i].stderr}`);
      assertMatch(cli[i].stderr, bad.stderr);
      assertEquals(cli[i].stdout, "");

      const refused = await serviceRefusal(() =>
        hob.services["tasks.add"]({ prompt: "p", ...bad.json }, serviceContext())
      );
      assertEquals([refused.code, refused.field], ["invalid", bad.field]);
    });
  }

  await t.step("the page refuses the same priority and title with its form message", async () => {
    for (
      const [body, message] of [["title=t&priority=1001", /priority is from -1000 to 1000/], [
        `title=${LONG_TITLE}`,
        /Too big: expected string to have &lt;=200 characters/,
      ]] as const
    ) {
      const page = await api.call("/ui/tasks", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "hx-request": "true" },
        body,
      });
      assertEquals(page.status, 422);
      assertMatch(await page.text(), message);
    }
  });

  await t.step("nothing was queued by any of them", () => {
    assertEquals(runtime.app.tasks.list(), []);
  });
});

Deno.test("a bad new job is refused alike by REST, the CLI and the tool services", async (t) => {
  await using api = await tempApi(YAML);
  const { runtime } = api;
  const hob = createServices(runtime.agent, runtime.toolbox, runtime.app);
  const cli = await runAll(
    BAD_JOBS.map((bad) => ["cron", "add", ...bad.cli, "--home", api.home.home]),
  );

  for (const [i, bad] of BAD_JOBS.entries()) {
    await t.step(bad.what, async () => {
      const rest = await api.call("/api/schedules", { method: "POST", json: bad.json });
      assertEquals(rest.status, 400);
      const { error } = await rest.json();
      assertEquals([error.code, error.field], ["invalid_request", bad.field]);

      assertEquals(cli[i].code, 2, `hob cron add ${bad.cli.join(" ")}: ${cli[i].stderr}`);
      assertMatch(cli[i].stderr, bad.stderr);

      const refused = await serviceRefusal(() =>
        hob.services["schedule.add"](bad.json, serviceContext())
      );
      assertEquals([refused.code, refused.field], ["invalid", bad.field]);
    });
  }

  await t.step("a name in use is a conflict everywhere", async () => {
    runtime.app.schedules.add({ name: "standup", prompt: "p", schedule: "every 1h" });
    const json = { name: "standup", prompt: "p", schedule: "every 2h" };
    const rest = await api.call("/api/schedules", { method: "POST", json });
    assertEquals([rest.status, (await rest.json()).error.code], [409, "duplicate"]);
    const [cli] = await runAll([[
      "cron",
      "add",
      "standup",
      "every 2h",
      "p",
      "--home",
      api.home.home,
    ]]);
    assertEquals([cli.code, cli.stderr], [
      1,
      "hob: A job named 'standup' exists already — give this one another name, or change or remove the job that has it\n",
    ]);
    const refused = await serviceRefusal(() =>
      hob.services["schedule.add"](json, serviceContext())
    );
    assertEquals(refused.code, "duplicate");
    assertEquals(runtime.app.schedules.list().map((job) => job.schedule), ["every 1h"]);
  });
});

Deno.test("what the tool services creates for a tainted turn carries the taint; the other ways cannot set it", async () => {
  await using api = await tempApi(YAML);
  const { runtime } = api;
  const hob = createServices(runtime.agent, runtime.toolbox, runtime.app);
  const tainted = serviceContext("fetch_url: https://evil.example");

  const task = await hob.services["tasks.add"]({ title: "t", prompt: "p" }, tainted) as {
    id: number;
  };
  assertEquals(runtime.app.tasks.get({ id: task.id }).taint, "fetch_url: https://evil.example");
  const job = await hob.services["schedule.add"](
    { name: "j", prompt: "p", schedule: "every 1h" },
    tainted,
  ) as { id: number };
  assertEquals(runtime.app.schedules.get({ key: job.id }).taint, "fetch_url: https://evil.example");

  // A clean turn's task is clean; and the API has no field for it.
  const clean = await hob.services["tasks.add"]({ title: "c", prompt: "p" }, serviceContext()) as {
    taint: string | null;
  };
  assertEquals(clean.taint, null);
  const smuggled = await api.call("/api/tasks", {
    method: "POST",
    json: { title: "t", taint: "x" },
  });
  assertEquals([smuggled.status, (await smuggled.json()).error.field], [400, "taint"]);
  assertEquals(runtime.app.tasks.list().map((each) => each.title), ["c", "t"]);
});
