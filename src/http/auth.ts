/**
 * Authentication: the API token (HOME/token) as `Authorization: Bearer`, or
 * the page's session cookie, which the `?token=` link `hob serve` prints sets.
 * The cookie is HttpOnly and SameSite=Strict, and a request it authenticates
 * that changes anything must also carry a header no cross-site form can send.
 * Comparisons take the same time whatever the guess, so they leak nothing,
 * and an address that sends too many wrong tokens waits out the minute (429).
 */

import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { errorResponse } from "./errors.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "hob_session";
/** The header the page sends with every request that changes something (htmx sends HX-Request). */
export const PAGE_HEADER = "x-hob-request";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const BEARER = /^Bearer\s/i;

/** What a request proved. */
export type Authenticated = "token" | "session" | null;

/** How failed attempts are limited. */
export interface AuthOptions {
  /** Wrong tokens one address may send in a window before it is refused until the window ends. */
  maxFailures?: number;
  /** The window, in milliseconds. */
  windowMs?: number;
  now?: () => number;
}

/** The failures of one address in the current window. */
interface Strikes {
  count: number;
  since: number;
}

/**
 * The token's checks: the bearer header, the session cookie, and setting it.
 *
 * @example
 * ```ts
 * const auth = createAuth(token);
 * app.use("/api/*", auth.require());
 * ```
 */
export function createAuth(token: string, options: AuthOptions = {}) {
  if (token.length < 16) {
    throw new TypeError(
      `Cannot guard the API as 'token' must be at least 16 characters: current length is ${token.length}`,
    );
  }
  const expected = digest(token);
  // The cookie holds a value derived from the token, never the token itself.
  const session = createHmac("sha256", token).update("hob session v1").digest("base64url");
  const sessionDigest = digest(session);

  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const strikes = new Map<string, Strikes>();

  /** The address a request came from (Deno.serve's info); tests without one share a key. */
  const addressOf = (c: Context): string =>
    (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname ??
      "unknown";

  const current = (address: string): Strikes | undefined => {
    const entry = strikes.get(address);
    if (entry && now() - entry.since >= windowMs) {
      strikes.delete(address);
      return undefined;
    }
    return entry;
  };

  /** Seconds the request's address must wait before it may try a token again; 0 when it may. */
  function retryAfter(c: Context): number {
    const entry = current(addressOf(c));
    if (!entry || entry.count < maxFailures) return 0;
    return Math.max(1, Math.ceil((entry.since + windowMs - now()) / 1000));
  }

  /** Compares a token the request sent; a wrong one counts against its address. */
  function tokenMatches(c: Context, candidate: string): boolean {
    if (timingSafeEqual(digest(candidate), expected)) return true;
    const address = addressOf(c);
    const entry = current(address);
    if (entry) entry.count++;
    else {
      // Old entries of other addresses go when a new one comes, so the map stays small.
      for (const key of strikes.keys()) current(key);
      strikes.set(address, { count: 1, since: now() });
    }
    return false;
  }

  /** How the request authenticated, if it did. */
  function check(c: Context): Authenticated {
    const header = c.req.header("authorization") ?? "";
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer) return tokenMatches(c, bearer[1]) ? "token" : null;
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie && timingSafeEqual(digest(cookie), sessionDigest)) return "session";
    return null;
  }

  /** The 429 a request gets while its address is waiting. */
  function tooMany(c: Context, seconds: number): Response {
    c.header("Retry-After", String(seconds));
    return errorResponse(
      c,
      429,
      "rate_limited",
      `Too many wrong tokens from this address; try again in ${seconds} s`,
    );
  }

  return {
    check,
    tokenMatches,
    retryAfter,
    tooMany,

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
        // A token guess waits out its address's minute; the page's session (no guess) never does.
        const wait = BEARER.test(c.req.header("authorization") ?? "") ? retryAfter(c) : 0;
        if (wait > 0) return tooMany(c, wait);
        const by = check(c);
        if (!by) {
          const sent = BEARER.test(c.req.header("authorization") ?? "");
          c.header("WWW-Authenticate", 'Bearer realm="hob"');
          return errorResponse(
            c,
            401,
            "unauthorized",
            sent
              ? "The API token is wrong — it is in HOME/token"
              : "Send the API token as 'Authorization: Bearer <token>' — it is in HOME/token",
          );
        }
        if (by === "session" && !SAFE_METHODS.has(c.req.method) && !fromPage(c)) {
          return errorResponse(
            c,
            403,
            "forbidden",
            "A change made with the page's session must come from the page",
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

/** Hashing first makes both sides the same length, which timingSafeEqual needs. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
