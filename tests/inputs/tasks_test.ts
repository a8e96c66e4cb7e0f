/**
 * A new task's input has one schema (src/inputs/tasks.ts): the app's task
 * action parses it, and the `create_task` tool's parameters — what a model
 * reads in the manifest and what the registry checks its call against — are
 * derived from it, so a model meets the limits a person does. So are the
 * other task tools' status and id.
 */

import { z } from "zod";
import { listTasksInput, newTaskInput, taskIdInput } from "../../src/app/tasks.ts";
import { BUILTIN_MANIFEST } from "../../src/builtins/manifest.gen.ts";
import cancelTask from "../../src/builtins/cancel_task.ts";
import createTask from "../../src/builtins/create_task.ts";
import listTasks from "../../src/builtins/list_tasks.ts";
import viewTask from "../../src/builtins/view_task.ts";
import { MAX_PRIORITY, MAX_TASK_PROMPT_CHARS } from "../../src/inputs/task_limits.ts";
import { assertEquals } from "../helpers/assert.ts";

/** A schema's properties as JSON Schema, as a model reads them. */
function properties(schema: z.ZodType): Record<string, Record<string, unknown>> {
  const { properties } = z.toJSONSchema(schema, { io: "input" });
  return JSON.parse(JSON.stringify(properties));
}

Deno.test("create_task's parameters are the app's new-task schema, the prompt required", async (t) => {
  const action = properties(newTaskInput);
  const tool = properties(createTask.parameters as z.ZodType);

  await t.step("every field with the action's limits and defaults", () => {
    assertEquals(Object.keys(tool), Object.keys(action));
    for (const field of ["title", "priority", "blocked_by"]) {
      assertEquals(tool[field], action[field], field);
    }
    const { description, ...prompt } = tool.prompt;
    assertEquals(prompt, action.prompt);
    assertEquals(description, "The whole instruction; the worker sees only this");
    assertEquals([tool.prompt.maxLength, tool.priority.maximum], [
      MAX_TASK_PROMPT_CHARS,
      MAX_PRIORITY,
    ]);
  });

  await t.step("the manifest a model reads says the same", () => {
    const listed = BUILTIN_MANIFEST.find((entry) => entry.name === "create_task")!;
    const { properties: fields, required } = listed.parameters as {
      properties: Record<string, unknown>;
      required: string[];
    };
    assertEquals(fields, tool);
    assertEquals(required, ["title", "prompt"]);
  });
});

Deno.test("list_tasks, view_task and cancel_task take a status and a task id as the app's actions do", () => {
  const status = properties(listTasksInput).status;
  const id = properties(taskIdInput).id;
  const listed = properties(listTasks.parameters as z.ZodType);
  const viewed = properties(viewTask.parameters as z.ZodType);
  const cancelled = properties(cancelTask.parameters as z.ZodType);
  assertEquals(withoutDescription(listed.status), status);
  assertEquals(viewed.id, id);
  assertEquals(withoutDescription(cancelled.task), id);
});

/** A JSON Schema property without the words a tool adds for its model. */
function withoutDescription(property: Record<string, unknown>): Record<string, unknown> {
  const { description: _, ...rest } = property;
  return rest;
}
