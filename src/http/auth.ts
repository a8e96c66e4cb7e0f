/**
 * Authentication: the API token (HOME/token) as `Authorization: Bearer`, or
 * the page's session cookie, which the `?token=` link `hob serve` prints sets.
 * The cookie is HttpOnly and SameSite=Strict, and a request it authenticates
 * that changes anything must also carry a header no cross-site form can send.
 * Comparisons take the same time whatever the guess, so they leak nothing.
 */

import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { errorBody } from "./errors.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "hob_session";
/** The header the page sends with every request that changes something (htmx sends HX-Request). */
export const PAGE_HEADER = "x-hob-request";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** What a request proved. */
export type Authenticated = "token" | "session" | null;

/**
 * The token's checks: the bearer header, the session cookie, and setting it.
 *
 * @example
 * ```ts
 * const auth = createAuth(token);
 * app.use("/api/*", auth.require());
 * ```
 */
export function createAuth(token: string) {
  if (token.length < 16) {
    throw new TypeError(
      `Cannot guard the API as 'token' must be at least 16 characters: current length is ${token.length}`,
    );
  }
  const expected = digest(token);
  // The cookie holds a value derived from the token, never the token itself.
  const session = createHmac("sha256", token).update("hob session v1").digest("base64url");
  const sessionDigest = digest(session);

  const matchesToken = (candidate: string) => timingSafeEqual(digest(candidate), expected);

  /** How the request authenticated, if it did. */
  function check(c: Context): Authenticated {
    const header = c.req.header("authorization") ?? "";
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer) return matchesToken(bearer[1]) ? "token" : null;
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie && timingSafeEqual(digest(cookie), sessionDigest)) return "session";
    return null;
  }

  return {
    check,
    matchesToken,

    /** Sets the session cookie (after the `?token=` link was opened). */
    startSession(c: Context): void {
      setCookie(c, SESSION_COOKIE, session, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
        maxAge: 60 * 60 * 24 * 365,
      });
    },

    /** Guards the API: a token or a session, and for a session's writes the page's header. */
    require(): MiddlewareHandler {
      return async function tokenAuth(c, next) {
        const by = check(c);
        if (!by) {
          const sent = /^Bearer\s/i.test(c.req.header("authorization") ?? "");
          c.header("WWW-Authenticate", 'Bearer realm="hob"');
          return c.json(
            errorBody(
              "unauthorized",
              sent
                ? "The API token is wrong — it is in HOME/token"
                : "Send the API token as 'Authorization: Bearer <token>' — it is in HOME/token",
            ),
            401,
          );
        }
        if (by === "session" && !SAFE_METHODS.has(c.req.method) && !fromPage(c)) {
          return c.json(
            errorBody("forbidden", "A change made with the page's session must come from the page"),
            403,
          );
        }
        await next();
      };
    },
  };
}

/** Whether a request carries a header only the page's own scripts send (a cross-site form cannot). */
export function fromPage(c: Context): boolean {
  return c.req.header(PAGE_HEADER) === "1" || c.req.header("hx-request") === "true";
}

/**
 * Requires `Authorization: Bearer <token>` (or the page's session) on every request it guards.
 *
 * @example
 * ```ts
 * app.use("/api/*", requireToken(token));
 * ```
 */
export function requireToken(token: string): MiddlewareHandler {
  return createAuth(token).require();
}

/** Hashing first makes both sides the same length, which timingSafeEqual needs. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
