/**
 * The one error of the application layer and the one way its input is
 * checked. An action refuses with an {@linkcode ActionError} whose `code`
 * says why and whose `field` names the bad input; each way in turns it into
 * its own wire format (REST: a 4xx `{"error"}` naming the field; the CLI:
 * exit 2 or 1 with one line; the page: its form message; the services tools call: an
 * Error the model reads). It knows no way in and no wire format.
 */

import type { z } from "zod";
import { unstorableText } from "../core/storable.ts";

/**
 * Why an action refused: `invalid` input (a 400, exit 2), `not_found`, a
 * state that forbids it — `conflict` (a finished task), `duplicate` (a name
 * in use), `busy` (running already) — `unavailable`, something this hob is
 * not set up for (no speech provider, a program not installed: a 503), or
 * `failed`, a provider it relies on failed (a 502).
 */
export type ActionErrorCode =
  | "invalid"
  | "not_found"
  | "conflict"
  | "duplicate"
  | "busy"
  | "unavailable"
  | "failed";

/** What an {@linkcode ActionError} carries beyond its code and message. */
export interface ActionErrorOptions {
  /** The input at fault, as a path: `priority`, `blocked_by.0`. */
  field?: string;
  /** zod's account of the fault, when the input's schema refused it. */
  issue?: z.core.$ZodIssue;
  cause?: unknown;
}

/**
 * An action that cannot be done, and why.
 *
 * @example
 * ```ts
 * try {
 *   app.tasks.add({ title: "Tidy", priority: 5_000 });
 * } catch (error) {
 *   if (error instanceof ActionError && error.code === "invalid") console.log(error.field); // "priority"
 * }
 * ```
 */
export class ActionError extends Error {
  override name = "ActionError";
  readonly code: ActionErrorCode;
  readonly field?: string;
  readonly issue?: z.core.$ZodIssue;
  constructor(code: ActionErrorCode, message: string, options: ActionErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.issue = options.issue;
  }
}

/**
 * Checks `input` against an action's schema and returns what the schema
 * makes of it (trimmed, defaults filled in). A refusal is an `invalid`
 * {@linkcode ActionError} naming the first bad field, worded as the REST API
 * words it: `'priority': Too big: expected number to be <=1000`. The actions
 * call it, so no way in can skip it; a way in hands on what it received
 * ({@linkcode received}) and words the refusal, so a chat or a new task is
 * parsed once. (Some CLI commands — cron, memory, voice, reset, backup —
 * still call it early too, before they open the home.)
 *
 * @example
 * ```ts
 * const input = checkInput(newTaskInput, { title: " Tidy " }); // { title: "Tidy", priority: 0, blocked_by: [] }
 * ```
 */
export function checkInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const fault = unstorableText(input);
  if (fault) {
    throw new ActionError("invalid", `'${fault.field}': ${fault.problem}`, { field: fault.field });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  const field = path.map(String).join(".");
  const problem = issue.code === "unrecognized_keys" ? "unknown field" : issue.message;
  throw new ActionError("invalid", field ? `'${field}': ${problem}` : `input: ${problem}`, {
    field: field || undefined,
    issue,
  });
}

/**
 * What a way in received (a JSON body, MCP's arguments), typed as the input
 * of the action whose schema is `schema` and handed on unchecked: the action
 * checks it with {@linkcode checkInput}, the one parser of that input. The
 * schema is only the type's witness.
 *
 * @example
 * ```ts
 * const events = await conversations.turn(received(chatInput, await c.req.json()));
 * ```
 */
export function received<T extends z.ZodType>(_schema: T, value: unknown): z.input<T> {
  // The one place a wire value takes an action's type: the action parses it before any use.
  return value as z.input<T>;
}
