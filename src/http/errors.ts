/**
 * The API's one error shape, `{"error": {"code", "message"}}`, and the handler
 * that turns anything thrown into it. A 4xx is the caller's mistake and says
 * how to fix it; a full disk or a read-only home is a 507 or 503 saying so,
 * and hob.db locked by another program a 503 with `Retry-After`; a 500 is a
 * bug in hob, logged with its stack.
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ActionError } from "../app/errors.ts";
import { StorageError, type StorageProblem, storageProblem } from "../home/storage.ts";
import { errorShape } from "./error_shape.ts";

export { errorBody } from "./error_shape.ts";

/**
 * How each storage problem is answered: Insufficient Storage, unavailable
 * until fixed — or, for a lock another program holds, unavailable for now:
 * `retryAfter` seconds is when to try again.
 */
const STORAGE_STATUS: Record<
  StorageProblem,
  { status: 503 | 507; code: string; retryAfter?: number }
> = {
  full: { status: 507, code: "storage_full" },
  read_only: { status: 503, code: "storage_read_only" },
  denied: { status: 503, code: "storage_denied" },
  busy: { status: 503, code: "store_busy", retryAfter: 5 },
};

/** An error the API answers with; `field` names the bad input when there is one. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status:
    | 400
    | 401
    | 403
    | 404
    | 409
    | 413
    | 415
    | 422
    | 429
    | 502
    | 503
    | 507;
  readonly code: string;
  readonly field?: string;
  constructor(
    status: ApiError["status"],
    code: string,
    message: string,
    field?: string,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/**
 * An error response in the shape of the API the request was for: a JSON-RPC
 * error for `/mcp`, OpenAI's `{error: {message, type, param, code}}` for
 * `/v1`, {@linkcode errorBody} everywhere else — so every client can read
 * every refusal, whichever layer refused.
 *
 * @example
 * ```ts
 * return errorResponse(c, 413, "payload_too_large", "The body is larger than 1048576 bytes");
 * ```
 */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  field?: string,
): Response {
  return c.json(errorShape(c.req.path, status, code, message, field), status);
}

/**
 * `api.onError`: ApiError and HTTPException as themselves, an ActionError as
 * its status (an `invalid` one a 400 naming the field), a write the disk
 * refused as 507/503 (`storage_full`, `storage_read_only`), hob.db locked by
 * another program as 503 `store_busy` with `Retry-After`, anything else a
 * logged 500.
 */
export function handleError(thrown: Error, c: Context): Response {
  // An action's refusal a route did not translate itself is still the caller's fault, not a 500.
  const error = apiError(thrown) as Error;
  if (error instanceof ApiError) {
    return errorResponse(c, error.status, error.code, error.message, error.field);
  }
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode;
    return errorResponse(
      c,
      status,
      status === 401 ? "unauthorized" : "http_error",
      error.message || `HTTP ${status}`,
    );
  }
  if (isUnreadableBody(error)) {
    // The client broke off or mangled the body (bad chunked framing, a short Content-Length).
    return errorResponse(c, 400, "unreadable_body", "The request body could not be read");
  }
  const problem = storageProblem(error);
  if (problem) {
    const storage = new StorageError(problem, undefined, { cause: error });
    console.error(`hob: ${c.req.method} ${c.req.path} failed: ${storage.message}`);
    const { status, code, retryAfter } = STORAGE_STATUS[problem];
    if (retryAfter) c.header("Retry-After", String(retryAfter));
    return errorResponse(c, status, code, storage.message);
  }
  // The path is the caller's text: as an argument, never as the format string (`%c`, `%o` …).
  console.error("hob: internal error on %s %s:", c.req.method, c.req.path, error);
  return errorResponse(
    c,
    500,
    "internal",
    "Internal error in hob — the server log has the details",
  );
}

/** An error reading the request's body off the connection, which only the client can cause. */
function isUnreadableBody(error: Error): boolean {
  return (error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Http) &&
    /request body|body from connection/i.test(error.message);
}

/**
 * An error thrown after a stream's 200 went out, as the agent's `error` event
 * (`{type, code, message}`), so a streaming client hears what a JSON client
 * would: `storage_full` for a full disk, `store_busy` for hob.db locked by
 * another program, else `internal` (logged with its stack).
 *
 * @example
 * ```ts
 * } catch (error) {
 *   await stream.writeSSE({ event: "error", data: JSON.stringify(streamErrorEvent(error, "POST /api/chat")) });
 * }
 * ```
 */
export function streamErrorEvent(
  error: unknown,
  where: string,
): { type: "error"; code: string; message: string } {
  const problem = storageProblem(error);
  if (problem) {
    const storage = new StorageError(problem, undefined, { cause: error });
    console.error(`hob: ${where} failed: ${storage.message}`);
    return { type: "error", code: STORAGE_STATUS[problem].code, message: storage.message };
  }
  console.error("hob: internal error on %s:", where, error);
  return {
    type: "error",
    code: "internal",
    message: "Internal error in hob — the server log has the details",
  };
}

/** `api.notFound`. */
export function handleNotFound(c: Context): Response {
  return errorResponse(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}`);
}

/** What a path's id names, as a 404 words it. */
export type Resource = "Schedule" | "Task" | "Notification";

/** The API's 404 for a resource that is not there. */
export function notFound(kind: Resource, id: string | number): ApiError {
  return new ApiError(404, "not_found", `${kind} '${id}' does not exist`);
}

/**
 * Runs an action, answering its refusal as the API does: bad input a 400
 * naming the field, a missing `kind` a 404, a state that forbids it a 409
 * with the action's code (`conflict`, `duplicate`, `busy`) and its field. Every route
 * over src/app answers through it (or {@linkcode actAsync}).
 *
 * @example
 * ```ts
 * return c.json(act(() => tasks.cancel({ id }), "Task", id)); // a 404 naming task `id` when it is not there
 * ```
 */
export function act<T>(action: () => T, kind?: Resource, id?: string | number): T {
  try {
    return action();
  } catch (error) {
    throw apiError(error, kind, id);
  }
}

/**
 * {@linkcode act} for an action that settles later.
 *
 * @example
 * ```ts
 * return c.json(await actAsync(() => tools.invoke({ name, args }, { source: "api" })));
 * ```
 */
export async function actAsync<T>(
  action: () => Promise<T>,
  kind?: Resource,
  id?: string | number,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw apiError(error, kind, id);
  }
}

function apiError(error: unknown, kind?: Resource, id?: string | number): unknown {
  if (!(error instanceof ActionError)) return error;
  // A path's id that no task or job can have (0, past 2^53) names nothing: a 404, not a 400.
  const missing = error.code === "not_found" ||
    (error.code === "invalid" && (error.field === "id" || error.field === "key"));
  if (missing && kind) return notFound(kind, id!);
  switch (error.code) {
    case "invalid":
      return new ApiError(400, "invalid_request", error.message, error.field);
    case "not_found":
      return new ApiError(404, "not_found", error.message);
    case "unavailable":
      return new ApiError(503, "unavailable", error.message);
    case "failed":
      return new ApiError(502, "upstream_failed", error.message);
    default:
      // A state that forbids it, naming the input it concerns (a stale `hash`) when the action did.
      return new ApiError(409, error.code, error.message, error.field);
  }
}
