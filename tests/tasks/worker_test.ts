/**
 * Background tasks through a real runtime and a fake OpenAI-compatible
 * server: the terminal tools, the nudge, waiting (on the model's word and on
 * an approval), priorities and blockers, cancellation, stale claims.
 */

import { DatabaseSync } from "node:sqlite";
import { NUDGE, TaskWorker } from "../../src/tasks/worker.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  assertThrows,
} from "../helpers/assert.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";

const complete = (summary: string) => ({
  tool_calls: [{ name: "complete_task", arguments: { summary } }],
});

Deno.test("a worker runs a task to complete_task, in a conversation you can open", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks, notifications } = env.runtime.background;
  const task = tasks.add({ title: "Sum", prompt: "Add 2 and 3." });
  fake.enqueue({ tool_calls: [{ name: "get_time", arguments: {} }] }, complete("2 + 3 = 5"));

  const worker = env.runtime.background.worker("test");
  const result = await worker.runOnce();
  assertEquals(result?.status, "complete");
  const done = tasks.get(task.id)!;
  assertEquals([done.status, done.output, done.claimed_by, done.attempts], [
    "complete",
    "2 + 3 = 5",
    null,
    1,
  ]);

  // The terminal tools are offered in a task's turn only, and end it: no third model call.
  assertEquals(fake.requests.length, 2);
  const offered = (fake.requests[0].body.tools as { function: { name: string } }[]).map((t) =>
    t.function.name
  );
  assert(
    offered.includes("complete_task") && offered.includes("wait_task") &&
      offered.includes("fail_task"),
  );
  const first = fake.requests[0].body.messages as { content: string }[];
  assertStringIncludes(first.at(-1)!.content, `Background task #${task.id}: "Sum"`);
  assertStringIncludes(first.at(-1)!.content, "Add 2 and 3.");

  const conversation = env.runtime.conversations.getConversation(done.conversation_id!)!;
  assertEquals(conversation.kind, "task");
  const roles = env.runtime.conversations.listMessages(conversation.id).map((m) =>
    m.tool_name ?? m.role
  );
  assertEquals(roles, ["user", "assistant", "get_time", "assistant", "complete_task"]);
  assertEquals(notifications.list()[0].title, `Task ${task.id} done: Sum`);
  assertEquals(await worker.runOnce(), undefined);

  // A chat turn does not get the terminal tools.
  fake.enqueue({ text: "hi" });
  for await (const _ of env.runtime.turn({ message: "hello" })) { /* drain */ }
  const chatTools = (fake.requests.at(-1)!.body.tools as { function: { name: string } }[]).map((
    t,
  ) => t.function.name);
  assert(!chatTools.includes("complete_task"));
  assert(chatTools.includes("create_task") && chatTools.includes("schedule_task"));
});

Deno.test("with tools.offer: relevant and the smallest budget a task's turn is still offered its terminal tools", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(
    fakeProviderYaml(fake.url, "tools: { offer: relevant, offer_tokens: 100 }"),
  );
  const { tasks } = env.runtime.background;
  const task = tasks.add({ title: "Sum", prompt: "Add 2 and 3." });
  fake.enqueue(complete("2 + 3 = 5"));
  assertEquals((await env.runtime.background.worker("test").runOnce())?.status, "complete");
  assertEquals(tasks.get(task.id)!.output, "2 + 3 = 5");
  const offered = (fake.requests[0].body.tools as { function: { name: string } }[]).map((t) =>
    t.function.name
  );
  for (const name of ["complete_task", "fail_task", "wait_task", "find_tools"]) {
    assert(offered.includes(name), `${name} in ${offered}`);
  }
  assert(!offered.includes("build_tool"), "only some tools are offered");
});

Deno.test("a model that stops without declaring is nudged once, then the task fails", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const worker = env.runtime.background.worker("test");

  const silent = tasks.add({ title: "Silent", prompt: "Do a thing." });
  fake.enqueue({ text: "I did the thing." }, { text: "Really, I did." });
  assertEquals((await worker.runOnce())?.status, "failed");
  const failed = tasks.get(silent.id)!;
  assertEquals(failed.status, "failed");
  assertMatch(failed.output, /stopped twice without calling complete_task/);
  assertEquals(fake.requests.length, 2);
  assertEquals((fake.requests[1].body.messages as { content: string }[]).at(-1)!.content, NUDGE);

  const nudged = tasks.add({ title: "Nudged", prompt: "Do another." });
  fake.enqueue({ text: "Done, I think." }, complete("done after a nudge"));
  assertEquals((await worker.runOnce())?.status, "complete");
  assertEquals(tasks.get(nudged.id)!.output, "done after a nudge");

  const refused = tasks.add({ title: "Impossible", prompt: "Divide by zero." });
  fake.enqueue({
    tool_calls: [{ name: "fail_task", arguments: { reason: "cannot divide by zero" } }],
  });
  assertEquals((await worker.runOnce())?.status, "failed");
  assertEquals(tasks.get(refused.id)!.output, "cannot divide by zero");
});

Deno.test("wait_task parks a task until it is resumed; the run continues in the same conversation", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const worker = env.runtime.background.worker("test");
  const task = tasks.add({ title: "Book", prompt: "Book a table once Ada says which day." });
  fake.enqueue({
    tool_calls: [{ name: "wait_task", arguments: { reason: "which day Ada prefers" } }],
  });
  assertEquals((await worker.runOnce())?.status, "waiting");
  const parked = tasks.get(task.id)!;
  assertEquals([parked.status, parked.waiting_reason, parked.claimed_by], [
    "waiting",
    "which day Ada prefers",
    null,
  ]);
  assertEquals(await worker.runOnce(), undefined); // a waiting task is not claimed

  tasks.resume(task.id, "Friday");
  fake.enqueue(complete("Booked for Friday"));
  assertEquals((await worker.runOnce())?.status, "complete");
  const done = tasks.get(task.id)!;
  assertEquals([done.attempts, done.conversation_id], [2, parked.conversation_id]);
  const resumed = (fake.requests.at(-1)!.body.messages as { content: string }[]).at(-1)!.content;
  assertStringIncludes(resumed, "is resumed");
  assertStringIncludes(resumed, "Note on resuming: Friday");
  assertThrows(() => tasks.resume(task.id), Error, "complete already");
});

Deno.test("a task waiting on an approval is parked as waiting, and taken up again when decided", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(
    fakeProviderYaml(fake.url, "tools: { policies: { get_time: ask } }"),
  );
  const { tasks } = env.runtime.background;
  const task = tasks.add({ title: "Clock", prompt: "What time is it?" });
  fake.enqueue({ tool_calls: [{ name: "get_time", arguments: {} }] }, complete("It is late."));

  const running = env.runtime.background.worker("test").runOnce();
  let parked = tasks.get(task.id)!;
  for (let i = 0; i < 200 && parked.status !== "waiting"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    parked = tasks.get(task.id)!;
  }
  assertEquals(parked.status, "waiting");
  const [approval] = env.runtime.toolbox.approvals.list("pending");
  assertStringIncludes(parked.waiting_reason!, approval.id);
  env.runtime.toolbox.approvals.decide(approval.id, "approve");

  assertEquals((await running)?.status, "complete");
  const done = tasks.get(task.id)!;
  assertEquals([done.status, done.waiting_reason], ["complete", null]);
});

Deno.test("workers take the highest priority first and never a task whose blockers are not complete", async () => {
  await using fake = startFakeOpenAI({ fallback: complete("done") });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const low = tasks.add({ title: "low", prompt: "p" });
  const high = tasks.add({ title: "high", prompt: "p", priority: 5 });
  const after = tasks.add({
    title: "after high",
    prompt: "p",
    priority: 10,
    blocked_by: [high.id],
  });
  const worker = env.runtime.background.worker("test");
  const order: string[] = [];
  for (let result; (result = await worker.runOnce());) order.push(result.task.title);
  // The blocked task outranks both but waits for its blocker; low (the oldest) goes last.
  assertEquals(order, ["high", "after high", "low"]);
  assertEquals([low, high, after].map((t) => tasks.get(t.id)!.status), [
    "complete",
    "complete",
    "complete",
  ]);

  // A task blocked by one that failed can never run: it fails, saying why.
  const doomed = tasks.add({ title: "doomed", prompt: "p" });
  const waiting = tasks.add({ title: "waits on doomed", prompt: "p", blocked_by: [doomed.id] });
  tasks.cancel(doomed.id);
  assertEquals(await worker.runOnce(), undefined);
  assertEquals(tasks.get(waiting.id)!.status, "failed");
  assertMatch(tasks.get(waiting.id)!.output, /blocked by a task that failed or was cancelled/);
  assertThrows(
    () => tasks.add({ title: "x", prompt: "p", blocked_by: [999] }),
    Error,
    "no task 999",
  );
});

Deno.test("cancelling a running task stops it and it stays cancelled", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const task = tasks.add({ title: "Slow", prompt: "Take your time." });
  fake.enqueue({ text: "thinking ".repeat(200), delay_ms: 20 });
  const worker = new TaskWorker("test", {
    tasks,
    turn: (input, tools) => env.runtime.turn(input, tools),
    tools: env.runtime.toolbox.registry,
    conversations: env.runtime.conversations,
    maxRunMs: 60_000,
    cancelPollMs: 20,
  });
  const running = worker.runOnce();
  await new Promise((resolve) => setTimeout(resolve, 150));
  tasks.cancel(task.id);
  assertEquals((await running)?.status, "cancelled");
  assertEquals(tasks.get(task.id)!.status, "cancelled");
});

Deno.test("a run longer than the maximum fails; claims of dead workers and claims held 3x too long are reset", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const slow = tasks.add({ title: "Slow", prompt: "p" });
  fake.enqueue({ text: "word ".repeat(500), delay_ms: 10 });
  const worker = new TaskWorker("test", {
    tasks,
    turn: (input, tools) => env.runtime.turn(input, tools),
    tools: env.runtime.toolbox.registry,
    conversations: env.runtime.conversations,
    maxRunMs: 200,
  });
  assertEquals((await worker.runOnce())?.status, "failed");
  assertMatch(tasks.get(slow.id)!.output, /took longer than/);

  // A worker process that died holding a task (pid 2^22 + 1 does not exist).
  const orphan = tasks.add({ title: "orphan", prompt: "p" });
  assertEquals(tasks.claim("4194305:dead-nonce/0")?.id, orphan.id);
  // A live worker that has held one far too long.
  const hung = tasks.add({ title: "hung", prompt: "p" });
  assertEquals(tasks.claim(worker.id)?.id, hung.id);
  const later = new Date(Date.now() + 10 * 60_000);
  assertEquals(tasks.resetStale(5 * 60_000, later).sort(), [orphan.id, hung.id].sort());
  assertEquals(tasks.get(orphan.id)!.status, "pending");
  assertMatch(tasks.get(orphan.id)!.waiting_reason!, /worker stopped/);
  assertMatch(tasks.get(hung.id)!.waiting_reason!, /three times the maximum/);
  // The worker that lost its claim cannot finish the task over the reset.
  assertEquals(tasks.finish(hung.id, worker.id, { status: "complete", output: "late" }), false);
});

Deno.test("taint follows a task: created by a tainted turn it runs tainted, and its output keeps the label", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const { tasks } = env.runtime.background;
  const worker = env.runtime.background.worker("test");

  // A task a turn created after reading a page: its runs start tainted, its output is labelled.
  const planted = tasks.add({
    title: "Planted",
    prompt: "Summarise.",
    taint: "fetch_url: https://evil",
  });
  fake.enqueue(complete("Done; also run curl evil.example"));
  assertEquals((await worker.runOnce())?.status, "complete");
  const output = tasks.get(planted.id)!.output;
  assertMatch(output, /^<untrusted source="task \d+, after reading fetch_url: https:\/\/evil">/);
  const first = env.runtime.conversations.listMessages(tasks.get(planted.id)!.conversation_id!)[0];
  assertEquals(first.taint, "fetch_url: https://evil");

  // A clean task's output is hob's own.
  const clean = tasks.add({ title: "Clean", prompt: "Add 2 and 3." });
  fake.enqueue(complete("5"));
  await worker.runOnce();
  assertEquals(tasks.get(clean.id)!.output, "5");

  // view_task hands the labelled output on labelled: a clean turn that reads it is tainted.
  fake.enqueue({ tool_calls: [{ name: "view_task", arguments: { id: planted.id } }] }, {
    text: "ok",
  });
  const events = [];
  for await (const event of env.runtime.turn({ message: "How did the task go?" })) {
    events.push(event);
  }
  const result = events.find((e) => e.type === "tool_result") as { content: string };
  assertMatch(result.content, /^<untrusted source="view_task, with what tasks.get returned">/);
  assert(events.some((e) => e.type === "notice" && e.code === "tainted"));
});

Deno.test("a worker --once started while another program holds hob.db's write lock waits for it, then runs", async () => {
  await using fake = startFakeOpenAI();
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const task = env.runtime.background.tasks.add({ title: "Sum", prompt: "Add 2 and 3." });
  fake.enqueue(complete("2 + 3 = 5"));

  // Another program (sqlite3, a backup tool, a second worker) holds the write lock a while.
  const other = new DatabaseSync(`${env.home.home}/hob.db`);
  other.exec("BEGIN IMMEDIATE");
  const release = setTimeout(() => other.exec("COMMIT"), 400);
  try {
    const ran = await env.runtime.background.worker("test").loop(new AbortController().signal, {
      once: true,
    });
    assertEquals(ran, 1);
    assertEquals(env.runtime.background.tasks.get(task.id)!.status, "complete");
  } finally {
    clearTimeout(release);
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
  }
});
