/** The task actions over a real queue in a temporary hob.db: defaults, refusals and their codes. */

import { ActionError, checkInput } from "../../src/app/errors.ts";
import { createTaskActions, newTaskInput } from "../../src/app/tasks.ts";
import { SqliteTasks } from "../../src/store/tasks.ts";
import { assert, assertEquals, assertThrows } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

/** The action's refusal: its code, field and message. */
function refusal(fn: () => unknown): Pick<ActionError, "code" | "field" | "message"> {
  const error = assertThrows(fn, ActionError) as ActionError;
  return { code: error.code, field: error.field, message: error.message };
}

Deno.test("checkInput names the first bad field as the REST API does", async (t) => {
  await t.step("a value out of range", () => {
    assertEquals(refusal(() => checkInput(newTaskInput, { title: "t", priority: 5_000 })), {
      code: "invalid",
      field: "priority",
      message: "'priority': Too big: expected number to be <=1000",
    });
  });
  await t.step("an element of a list", () => {
    assertEquals(
      refusal(() => checkInput(newTaskInput, { title: "t", blocked_by: [3, 0] })).field,
      "blocked_by.1",
    );
  });
  await t.step("a field no action takes", () => {
    assertEquals(refusal(() => checkInput(newTaskInput, { title: "t", owner: "me" })), {
      code: "invalid",
      field: "owner",
      message: "'owner': unknown field",
    });
  });
  await t.step("not an object at all", () => {
    assertEquals(refusal(() => checkInput(newTaskInput, "tidy")).field, undefined);
  });
  await t.step("the zod issue comes along, for ways in that word it themselves", () => {
    const error = assertThrows(() => checkInput(newTaskInput, { title: "" }), ActionError);
    assertEquals((error as ActionError).issue?.code, "too_small");
  });
});

Deno.test("createTaskActions add fills in the defaults and keeps the host's taint", () => {
  using temp = tempStore();
  const tasks = createTaskActions(new SqliteTasks(temp.db));
  const task = tasks.add({ title: "  Tidy notes " });
  assertEquals(
    [task.title, task.prompt, task.priority, task.blocked_by, task.taint, task.status],
    ["Tidy notes", "Tidy notes", 0, [], null, "pending"],
  );
  const after = tasks.add({ title: "Then", prompt: "Do it", blocked_by: [task.id] }, {
    taint: "fetch_url: https://example.com",
  });
  assertEquals([after.prompt, after.blocked_by, after.taint], [
    "Do it",
    [task.id],
    "fetch_url: https://example.com",
  ]);
  assertEquals(tasks.list({ limit: 1 }).map((each) => each.id), [after.id]);
  assertEquals(tasks.counts().pending, 2);
});

Deno.test("createTaskActions refuses with the code each way in answers by", async (t) => {
  using temp = tempStore();
  const tasks = createTaskActions(new SqliteTasks(temp.db));
  const task = tasks.add({ title: "Tidy" });

  await t.step("a blocker that does not exist is invalid input naming blocked_by", () => {
    assertEquals(refusal(() => tasks.add({ title: "x", blocked_by: [42] })), {
      code: "invalid",
      field: "blocked_by",
      message: "blocked_by: there is no task 42",
    });
  });
  await t.step("a task that is not there is not_found", () => {
    assertEquals(refusal(() => tasks.get({ id: 99 })).code, "not_found");
    assertEquals(refusal(() => tasks.cancel({ id: 99 })).message, "There is no task 99");
  });
  await t.step("an id no task can have is invalid naming id", () => {
    assertEquals(refusal(() => tasks.get({ id: 0 })).field, "id");
  });
  await t.step("cancelling twice, and resuming a pending task, are conflicts", () => {
    assertEquals(tasks.cancel({ id: task.id }).status, "cancelled");
    assertEquals(refusal(() => tasks.cancel({ id: task.id })), {
      code: "conflict",
      field: undefined,
      message: `Task ${task.id} is cancelled already`,
    });
    const resumed = tasks.resume({ id: task.id, note: "now" });
    assertEquals(resumed.status, "pending");
    assert(resumed.prompt.endsWith("Note on resuming: now"));
    assertEquals(refusal(() => tasks.resume({ id: task.id })).code, "conflict");
  });
  await t.step("a listing's status and limit are checked", () => {
    assertEquals(
      refusal(() => tasks.list({ status: "done" as "complete" })).field,
      "status",
    );
    assertEquals(refusal(() => tasks.list({ limit: 1_001 })).field, "limit");
  });
});
