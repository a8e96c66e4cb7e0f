/** The `query_json` tool: values picked from a JSON file by a dot path with `*` wildcards. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { readJsonFile } from "./read_json.ts";

export default defineTool({
  name: "query_json",
  description:
    "Pick values from a JSON file with a dot path: 'users.0.name', 'users.*.email', '*.id'. '*' matches every array item or object value.",
  category: "data",
  side_effect: "none",
  untrusted_output: true,
  permissions: { read: ["$ROOTS"] },
  max_output_chars: 15_000,
  parameters: z.object({
    path: z.string().min(1).describe("The JSON file"),
    query: z.string().max(500).describe("Dot path; empty for the whole document"),
  }),
  async run({ path, query }, context) {
    const data = await readJsonFile(context, path);
    const matches = queryJson(data, query);
    if (matches.length === 0) return `Nothing at '${query}'`;
    return JSON.stringify(query.includes("*") ? matches : matches[0], null, 2);
  },
});

/**
 * Every value at a dot path; `*` fans out over array items and object values.
 *
 * @example
 * ```ts
 * queryJson({ a: [{ b: 1 }, { b: 2 }] }, "a.*.b"); // [1, 2]
 * ```
 */
export function queryJson(data: unknown, query: string): unknown[] {
  let current: unknown[] = [data];
  for (const key of query.split(".").filter((part) => part.length > 0)) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === null || typeof value !== "object") continue;
      if (key === "*") {
        next.push(...(Array.isArray(value) ? value : Object.values(value)));
      } else if (Array.isArray(value)) {
        const index = Number(key);
        if (Number.isInteger(index) && index >= -value.length && index < value.length) {
          next.push(value.at(index));
        }
      } else if (Object.hasOwn(value, key)) {
        next.push((value as Record<string, unknown>)[key]);
      }
    }
    current = next;
  }
  return current;
}
