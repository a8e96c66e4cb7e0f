/**
 * Bearer-token authentication for the API. The token lives in HOME/token; the
 * comparison takes the same time whatever the guess, so it leaks nothing.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";

/**
 * Requires `Authorization: Bearer <token>` on every request it guards.
 *
 * @example
 * ```ts
 * app.use("/api/*", requireToken(token));
 * ```
 */
export function requireToken(token: string): MiddlewareHandler {
  if (token.length < 16) {
    throw new TypeError(
      `Cannot guard the API as 'token' must be at least 16 characters: current length is ${token.length}`,
    );
  }
  const expected = digest(token);
  return async function tokenAuth(c, next) {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      c.header("WWW-Authenticate", 'Bearer realm="hob"');
      return c.json(
        errorBody(
          "unauthorized",
          match
            ? "The API token is wrong — it is in HOME/token"
            : "Send the API token as 'Authorization: Bearer <token>' — it is in HOME/token",
        ),
        401,
      );
    }
    await next();
  };
}

/** Hashing first makes both sides the same length, which timingSafeEqual needs. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
