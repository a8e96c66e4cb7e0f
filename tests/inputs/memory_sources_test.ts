/**
 * A source to add to memory has one schema (src/inputs/memory_sources.ts):
 * the app's source action parses it, and memory_add's parameter is derived
 * from it, so a model meets the limits a person does.
 */

import { z } from "zod";
import { addSourceInput } from "../../src/inputs/memory_sources.ts";
import memoryAdd from "../../src/builtins/memory_add.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("memory_add's source is the app's, described for the model", () => {
  const { properties: action } = z.toJSONSchema(addSourceInput, { io: "input" });
  const { properties: tool } = z.toJSONSchema(memoryAdd.parameters as z.ZodType, { io: "input" });
  const { description, ...source } = tool!.source as Record<string, unknown>;
  assertEquals(source, action!.source);
  assertEquals(description, "An http(s) URL, or the path of a file in the workspace");
});
