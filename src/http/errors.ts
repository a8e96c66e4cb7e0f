/**
 * The API's one error shape, `{"error": {"code", "message"}}`, and the handler
 * that turns anything thrown into it. A 4xx is the caller's mistake and says
 * how to fix it; a 500 is a bug in hob, logged with its stack.
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

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
    | 503;
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

/** The JSON body of an error response. */
export function errorBody(code: string, message: string, field?: string) {
  return { error: { code, message, ...(field ? { field } : {}) } };
}

/** `app.onError`: ApiError and HTTPException as themselves, anything else a logged 500. */
export function handleError(error: Error, c: Context): Response {
  if (error instanceof ApiError) {
    return c.json(
      errorBody(error.code, error.message, error.field),
      error.status,
    );
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    return c.json(
      errorBody(
        status === 401 ? "unauthorized" : "http_error",
        error.message || `HTTP ${status}`,
      ),
      status,
    );
  }
  console.error(`hob: internal error on ${c.req.method} ${c.req.path}:`, error);
  return c.json(
    errorBody(
      "internal",
      "Internal error in hob — the server log has the details",
    ),
    500,
  );
}

/** `app.notFound`. */
export function handleNotFound(c: Context): Response {
  return c.json(
    errorBody("not_found", `No route for ${c.req.method} ${c.req.path}`),
    404,
  );
}
