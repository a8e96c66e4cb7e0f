/**
 * The first step of a tool call: the model's arguments parsed as JSON and
 * validated against the tool's schema. A failure is a refusal the model can
 * act on, quoting only what it sent; nothing runs and nothing is asked.
 */

import type { z } from "zod";
import type { ToolCall } from "../core/types.ts";
import { hobWrote } from "../core/untrusted.ts";
import type { Refusal } from "./registry_types.ts";

/**
 * The call's arguments, parsed and validated (with the schema's defaults and
 * coercions applied), or the refusal that says what is wrong. Empty arguments
 * are an empty object.
 *
 * @example
 * ```ts
 * parseArguments({ id: "1", name: "read_file", arguments: '{"path":"a.txt"}' }, schema);
 * // { args: { path: "a.txt" } }
 * ```
 */
export function parseArguments(call: ToolCall, validator: z.ZodType): { args: unknown } | Refusal {
  let raw: unknown;
  try {
    raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch (error) {
    return refused(hobWrote(
      `The arguments for ${call.name} are not valid JSON (${
        (error as Error).message
      }). Send a JSON object.`,
    ));
  }
  const parsed = validator.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      `${issue.path.length ? issue.path.join(".") : "arguments"}: ${issue.message}`
    );
    return refused(hobWrote(`Invalid arguments for ${call.name}: ${problems.join("; ")}`));
  }
  return { args: parsed.data };
}

function refused(message: Refusal["refused"]): Refusal {
  return { refused: message, approval: "refused" };
}
