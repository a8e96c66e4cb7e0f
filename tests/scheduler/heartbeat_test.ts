/**
 * The heartbeat through a real runtime (SQLite, Markdown memory) against a
 * fake OpenAI-compatible server: HEARTBEAT_OK logs nothing, anything else
 * lands in today's log and a notification, a failing tick does not stop the
 * next, and every tick costs the same.
 */

import {
  activeChecklist,
  Heartbeat,
  HEARTBEAT_PROMPT,
  parseActiveHours,
  ticksPerDay,
  withinActiveHours,
} from "../../src/scheduler/heartbeat.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  assertThrows,
} from "../helpers/assert.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

async function todaysLog(home: string, now = new Date()): Promise<string> {
  const day = now.toISOString().slice(0, 10);
  try {
    return await Deno.readTextFile(`${home}/memory/${day}.md`);
  } catch {
    return "";
  }
}

/** The checks a user wrote: a new home's template has none. */
const CHECKS = "# Heartbeat\n\n- Is anything in today's log waiting on a follow-up I promised?\n" +
  "- Did a scheduled job fail since the last heartbeat?\n";

function writeChecklist(home: string): Promise<void> {
  return Deno.writeTextFile(`${home}/identity/HEARTBEAT.md`, CHECKS);
}

Deno.test("a heartbeat answered HEARTBEAT_OK logs nothing; another answer lands in today's log and a notification", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  await writeChecklist(env.home.home);
  const { heartbeat, notifications } = env.runtime.background;
  const home = env.home.home;

  fake.enqueue({ text: "Nothing needs doing. HEARTBEAT_OK" });
  const quiet = await heartbeat.tick();
  assertEquals(quiet.status, "ok");
  assertEquals(await todaysLog(home), "");
  assertEquals(notifications.list().length, 0);

  // What the agent was sent: the seed's words and the checklist, in a fresh heartbeat conversation.
  const sent = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
  assertStringIncludes(sent.at(-1)!.content, HEARTBEAT_PROMPT);
  assertStringIncludes(sent.at(-1)!.content, "Did a scheduled job fail since the last heartbeat?");
  assertEquals(
    env.runtime.conversations.getConversation(quiet.conversation_id!)?.kind,
    "heartbeat",
  );

  fake.enqueue({ text: "The 'backup' job failed at 03:00: disk full. Worth a look today." });
  const loud = await heartbeat.tick();
  assertEquals(loud.status, "reported");
  const log = await todaysLog(home);
  assertStringIncludes(log, "The 'backup' job failed at 03:00: disk full.");
  assertMatch(log, /Heartbeat/);
  const [notice] = notifications.list();
  assertEquals([notice.kind, notice.title, notice.read_at], ["heartbeat", "Heartbeat", null]);
  assertStringIncludes(notice.body, "disk full");

  const state = heartbeat.state();
  assertEquals([state.ticks, state.last_status, state.failures], [2, "reported", 0]);
  // Heartbeat conversations stay out of the user's chat list.
  assertEquals(env.runtime.conversations.listConversations().length, 0);
});

Deno.test("a failing heartbeat tick is recorded and the next one runs", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  await writeChecklist(env.home.home);
  const { heartbeat } = env.runtime.background;

  fake.enqueue({ status: 500, message: "upstream exploded" });
  const failed = await heartbeat.tick();
  assertEquals(failed.status, "error");
  assertMatch(failed.error ?? "", /exploded|500/);
  assertEquals(heartbeat.state().failures, 1);

  fake.enqueue({ text: "HEARTBEAT_OK" });
  const next = await heartbeat.tick();
  assertEquals(next.status, "ok");
  const state = heartbeat.state();
  assertEquals([state.ticks, state.failures, state.last_status, state.last_error], [
    2,
    1,
    "ok",
    null,
  ]);
});

Deno.test("the prompt of heartbeat tick 100 is the size of tick 1, and old heartbeat conversations go", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "HEARTBEAT_OK" } });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  await writeChecklist(env.home.home);
  const { heartbeat } = env.runtime.background;
  for (let i = 0; i < 100; i++) assertEquals((await heartbeat.tick()).status, "ok");

  const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
  assertEquals(chats.length, 100);
  const size = (i: number) => JSON.stringify(chats[i].body.messages).length;
  const count = (i: number) => (chats[i].body.messages as unknown[]).length;
  assertEquals(count(99), count(0));
  assertEquals(count(0), 2); // the system prompt and the checklist: no history
  assertEquals(size(99), size(0));
  assertEquals(heartbeat.state().ticks, 100);
  assertEquals(
    env.runtime.conversations.listConversations({ kind: "heartbeat", limit: 500 }).length,
    48,
  );
});

Deno.test("the heartbeat keeps to its active hours and its own model", async () => {
  await using fake = startFakeOpenAI({
    fallback: { text: "HEARTBEAT_OK" },
    models: ["fake-model", "small"],
  });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  await writeChecklist(env.home.home);
  const states = new Map<string, unknown>();
  const deps = {
    turn: env.runtime.turn,
    conversations: env.runtime.conversations,
    checklist: () => Promise.resolve("- check the mail"),
    logNote: () => Promise.resolve(""),
    notify: () => {},
    loadState: () => states.get("hb") as never,
    saveState: (state: unknown) => void states.set("hb", state),
    timers: false,
  };
  let now = new Date("2026-06-01T05:00:00Z"); // 07:00 in Berlin
  const heartbeat = new Heartbeat({
    intervalMs: 30 * 60_000,
    activeHours: parseActiveHours("08:00-22:00"),
    timezone: "Europe/Berlin",
    model: "fake/small",
  }, { ...deps, now: () => now });

  assertEquals((await heartbeat.tick()).status, "outside_hours");
  assertEquals(fake.requests.length, 0);
  now = new Date("2026-06-01T06:30:00Z"); // 08:30 in Berlin
  assertEquals((await heartbeat.tick()).status, "ok");
  assertEquals(fake.requests.at(-1)!.body.model, "small");

  // After a restart the next tick is one interval after the last one, not a fresh minute.
  const again = new Heartbeat({
    intervalMs: 30 * 60_000,
    activeHours: null,
    timezone: "UTC",
    model: null,
  }, { ...deps, now: () => new Date("2026-06-01T06:40:00Z") });
  again.start();
  assertEquals(again.state().next_tick, "2026-06-01T07:00:00.000Z");
  await again.stop();

  assert(
    withinActiveHours(new Date("2026-06-01T23:30:00Z"), parseActiveHours("22:00-06:00"), "UTC"),
  );
  assert(
    !withinActiveHours(new Date("2026-06-01T12:00:00Z"), parseActiveHours("22:00-06:00"), "UTC"),
  );
  assertThrows(() => parseActiveHours("8 to 10"), Error, "08:00-22:00");
});

Deno.test("a new home's heartbeat checks nothing and spends nothing until a check is written", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "HEARTBEAT_OK" } });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { heartbeat } = env.runtime.background;
  assertEquals((await heartbeat.tick()).status, "empty_checklist");
  assertEquals(fake.requests.length, 0);
  // The template's checks are examples inside a comment; headings are not checks.
  assertEquals(
    activeChecklist(await Deno.readTextFile(`${env.home.home}/identity/HEARTBEAT.md`)),
    "",
  );
  assertEquals(activeChecklist("# Heartbeat\n\n## Daily\n<!-- - x -->\n"), "");
  assertEquals(activeChecklist("Check the backup.\n<!-- old -->"), "Check the backup.");
  await writeChecklist(env.home.home);
  assertEquals((await heartbeat.tick()).status, "ok");
  assertEquals(fake.requests.length, 1);
});

Deno.test("after its first paid check the heartbeat says what a day of them costs, once", async () => {
  await using fake = startFakeOpenAI();
  // Fourteen active hours around now, whatever the hour the test runs at (a window past midnight too).
  const hour = (offset: number) =>
    `${String((new Date().getHours() + offset + 24) % 24).padStart(2, "0")}:00`;
  await using env = await tempRuntime(fakeProviderYaml(
    fake.url,
    `heartbeat: { interval_minutes: 30, active_hours: "${hour(-1)}-${hour(13)}" }
usage:
  prices:
    fake/fake-model: { input: 2, output: 4 }
`,
  ));
  await writeChecklist(env.home.home);
  const { heartbeat, notifications } = env.runtime.background;
  fake.enqueue({ text: "HEARTBEAT_OK", usage: { prompt_tokens: 1_000, completion_tokens: 50 } });
  assertEquals((await heartbeat.tick()).status, "ok");
  const [notice] = notifications.list();
  assertEquals(notice.title, "What the heartbeat costs");
  // 1,000 × $2 + 50 × $4 per million = $0.0022 a check; 14 hours / 30 minutes = 28 checks.
  assertStringIncludes(
    notice.body,
    "The first heartbeat check cost $0.0022. At 30-minute intervals that is 28 checks and about $0.06 a day.",
  );
  fake.enqueue({ text: "HEARTBEAT_OK", usage: { prompt_tokens: 1_000, completion_tokens: 50 } });
  assertEquals((await heartbeat.tick()).status, "ok");
  assertEquals(notifications.list().length, 1);
  assertEquals(ticksPerDay(30 * 60_000, null), 48);
  assertEquals(ticksPerDay(60 * 60_000, { start: 22 * 60, end: 6 * 60 }), 8);
});
