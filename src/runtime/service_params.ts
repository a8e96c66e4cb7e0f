/**
 * How one hob service is declared: its params' schema and a handler that
 * gets them typed by that schema, so what a tool's Worker sent is typed at
 * the boundary without a cast and checked once. Either the service itself
 * parses them ({@linkcode service}), or an app action does
 * ({@linkcode actionService}): then they are handed on as received, and the
 * action's `ActionError` names the field at fault. It knows no service.
 */

import type { z } from "zod";
import { received } from "../app/errors.ts";
import type { HobService, ServiceCallContext } from "../tools/registry.ts";

/**
 * A service whose params only it reads: `schema` parses them (its defaults
 * filled in) before `run` gets them. A refusal is zod's error, naming the
 * field.
 *
 * @example
 * ```ts
 * const echo = service(z.object({ text: z.string() }), ({ text }) => text);
 * await echo({ text: "hi" }, context); // "hi"
 * ```
 */
export function service<S extends z.ZodType, R>(
  schema: S,
  run: (params: z.output<S>, context: ServiceCallContext) => R | Promise<R>,
): HobService<z.input<S>, R> {
  return Object.assign(
    async function answer(params: unknown, context: ServiceCallContext): Promise<R> {
      return await run(schema.parse(params), context);
    },
    { schema },
  );
}

/**
 * A service over an app action whose input schema is `schema`: `run` gets
 * the params as received, typed as the action's input, and hands them to the
 * action, which parses them — the one parser of that input.
 *
 * @example
 * ```ts
 * const add = actionService(newTaskInput, (params, context) =>
 *   app.tasks.add(params, { taint: context.tainted }));
 * ```
 */
export function actionService<S extends z.ZodType, R>(
  schema: S,
  run: (params: z.input<S>, context: ServiceCallContext) => R | Promise<R>,
): HobService<z.input<S>, R> {
  return Object.assign(
    async function answer(params: unknown, context: ServiceCallContext): Promise<R> {
      return await run(received(schema, params), context);
    },
    { schema },
  );
}
