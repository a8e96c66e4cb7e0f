/**
 * A job's input has one schema (src/inputs/schedules.ts): the app's schedule
 * actions parse it, and schedule_task's and cancel_task's parameters are
 * derived from it, so a model meets the limits a person does.
 */

import { z } from "zod";
import { jobName, newScheduleInput } from "../../src/inputs/schedules.ts";
import cancelTask from "../../src/builtins/cancel_task.ts";
import scheduleTask from "../../src/builtins/schedule_task.ts";
import { assertEquals } from "../helpers/assert.ts";

/** A schema's properties as JSON Schema, as a model reads them, without the words for the model. */
function properties(schema: z.ZodType): Record<string, Record<string, unknown>> {
  const { properties } = z.toJSONSchema(schema, { io: "input" });
  return Object.fromEntries(
    Object.entries(JSON.parse(JSON.stringify(properties))).map(([name, property]) => {
      const { description: _, ...rest } = property as Record<string, unknown>;
      return [name, rest];
    }),
  );
}

Deno.test("schedule_task's parameters are the app's new-job fields a model sets, with their limits", () => {
  const action = properties(newScheduleInput);
  const tool = properties(scheduleTask.parameters as z.ZodType);
  assertEquals(Object.keys(tool), [
    "name",
    "prompt",
    "schedule",
    "timezone",
    "missed_policy",
    "deliver",
  ]);
  for (const field of ["name", "prompt", "schedule", "timezone", "missed_policy"]) {
    assertEquals(tool[field], action[field], field);
  }
  // The action also takes null (no channel); a model leaves the field out instead.
  assertEquals(action.deliver.anyOf, [tool.deliver, { type: "null" }]);
});

Deno.test("cancel_task names a job as the app's actions do", () => {
  const { $schema: _, ...name } = z.toJSONSchema(jobName, { io: "input" });
  assertEquals(properties(cancelTask.parameters as z.ZodType).schedule, name);
});
