/**
 * Reading request input through zod schemas, so a malformed request is a 400
 * naming the field and what was expected — never a 500.
 */

import type { Context } from "hono";
import type { z } from "zod";
import { received } from "../app/errors.ts";
import { actAsync, ApiError } from "./errors.ts";

/**
 * Parses and validates a JSON body.
 *
 * @example
 * ```ts
 * const body = await readJson(c, z.object({ message: z.string() }));
 * ```
 */
export async function readJson<T extends z.ZodType>(
  c: Context,
  schema: T,
): Promise<z.output<T>> {
  return check(schema, await readJsonBody(c), "body");
}

/**
 * A JSON body for the action whose schema is `schema`, handed on unchecked:
 * the action parses it, once, and its refusal is the 400 naming the field.
 *
 * @example
 * ```ts
 * const events = await conversations.turn(await readInput(c, chatInput));
 * ```
 */
export async function readInput<T extends z.ZodType>(
  c: Context,
  schema: T,
): Promise<z.input<T>> {
  return received(schema, await readJsonBody(c));
}

/** A body sent as JSON, parsed; a 415 when it is not sent as JSON, a 400 when it is not JSON. */
async function readJsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "Send the body as JSON with 'Content-Type: application/json'",
    );
  }
  const body = await jsonBody(c);
  if (body instanceof Error) throw new ApiError(400, "invalid_json", body.message);
  return body;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A request's body parsed as JSON, or an Error saying why it is not: bytes
 * that are not UTF-8 are refused, not read with U+FFFD in their place.
 *
 * @example
 * ```ts
 * const body = await jsonBody(c);
 * if (body instanceof Error) return c.json({ error: body.message }, 400);
 * ```
 */
export async function jsonBody(c: Context): Promise<unknown> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Cut off, or framed wrongly: the client sent less than it said.
    return new Error("The body could not be read whole");
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return new Error("The body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    return new Error("The body is not valid JSON");
  }
}

/**
 * Reads a form body (multipart/form-data or application/x-www-form-urlencoded);
 * a body that does not parse as one is a 400, not a 500.
 *
 * @example
 * ```ts
 * const form = await readForm(c, { all: true });
 * ```
 */
export async function readForm(
  c: Context,
  options: { all?: boolean } = {},
): Promise<Record<string, string | File | (string | File)[]>> {
  try {
    return await c.req.parseBody(options);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(
      400,
      "invalid_form",
      "The body is not a valid form: send multipart/form-data or application/x-www-form-urlencoded",
    );
  }
}

/**
 * The percent-decoded rest of the path after `prefix` (a wildcard route's
 * tail, which may hold `/`); a malformed escape such as `%ff` is a 400
 * naming the path, not a URIError.
 *
 * @example
 * ```ts
 * const path = pathTail(c, "/api/memory/files/"); // "notes/ideas.md"
 * ```
 */
export function pathTail(c: Context, prefix: string): string {
  const raw = c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length) : "";
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, "invalid_path", `The path '${raw}' has a malformed %-escape`, "path");
  }
}

/**
 * Runs the action whose input is the request's query parameters, handed on
 * unchecked: the action parses them with `schema`, once, and its refusal of
 * one of them is a 400 naming it as a query parameter.
 *
 * @example
 * ```ts
 * routes.get("/", async (c) =>
 *   c.json({ conversations: await queryAction(c, listConversationsInput, (query) => conversations.list(query)) }));
 * ```
 */
export async function queryAction<T extends z.ZodType, R>(
  c: Context,
  schema: T,
  action: (query: z.input<T>) => R | Promise<R>,
): Promise<R> {
  try {
    return await actAsync(async () => await action(received(schema, c.req.query())));
  } catch (error) {
    const fields = "shape" in schema ? Object.keys(schema.shape as object) : [];
    if (error instanceof ApiError && error.status === 400 && fields.includes(error.field ?? "")) {
      throw new ApiError(400, error.code, `query parameter ${error.message}`, error.field);
    }
    throw error;
  }
}

/** Validates query parameters (all strings; use `z.coerce` for numbers). */
export function readQuery<T extends z.ZodType>(
  c: Context,
  schema: T,
): z.output<T> {
  return check(schema, c.req.query(), "query");
}

function check<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: string,
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  const field = path.map(String).join(".");
  const problem = issue.code === "unrecognized_keys" ? "unknown field" : issue.message;
  throw new ApiError(
    400,
    "invalid_request",
    field
      ? `${where === "query" ? "query parameter " : ""}'${field}': ${problem}`
      : `${where}: ${problem}`,
    field || undefined,
  );
}
