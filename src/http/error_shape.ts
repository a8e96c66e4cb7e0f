/**
 * The body of an error response in the shape of the API the request was
 * for, with no HTTP framework: the gate answers with it before Hono loads, and
 * errors.ts's `errorResponse` wraps it for routes.
 */

/** The JSON body of an error response. */
export function errorBody(code: string, message: string, field?: string) {
  return { error: { code, message, ...(field ? { field } : {}) } };
}

/**
 * A JSON-RPC error for `/mcp`, OpenAI's `{error: {message, type, param, code}}`
 * for `/v1`, {@linkcode errorBody} everywhere else.
 *
 * @example
 * ```ts
 * errorShape("/v1/models", 403, "forbidden", "No"); // { error: { message: "No", type: "invalid_request_error", … } }
 * ```
 */
export function errorShape(
  path: string,
  status: number,
  code: string,
  message: string,
  field?: string,
): Record<string, unknown> {
  if (path === "/mcp" || path.startsWith("/mcp/")) {
    return { jsonrpc: "2.0", error: { code: -32000, message }, id: null };
  }
  if (path === "/v1" || path.startsWith("/v1/")) {
    // OpenAI calls every caller's mistake an invalid request; `code` says which.
    const type = status >= 500 ? "server_error" : "invalid_request_error";
    return { error: { message, type, param: field ?? null, code } };
  }
  return errorBody(code, message, field);
}
