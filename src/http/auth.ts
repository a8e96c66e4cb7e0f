/**
 * Authentication: the API token (HOME/token) as `Authorization: Bearer`, or
 * the page's session cookie, which the `?token=` link `hob serve` prints sets.
 * The cookie is HttpOnly and SameSite=Strict, and a request it authenticates
 * that changes anything must also carry a header no cross-site form can send.
 * Comparisons take the same time whatever the guess, so they leak nothing.
 *
 * The right token always passes: it is compared first, before any limit, so
 * nobody can lock the owner out. Wrong tokens are limited per address: past
 * `maxFailures` in a window, a wrong one is answered 429 until the window ends.
 * Only a request whose sender can read the answer counts — a browser's
 * cross-site request (a navigation, the only kind the guard lets through)
 * cannot, so a hostile page that sends the owner's browser to `/?token=wrong`
 * spends none of the owner's address's budget. A client without Fetch Metadata
 * (curl, an SDK) can read the answer, so its wrong tokens count. Forging
 * `Sec-Fetch-Site` wins nothing: the limit changes how a wrong token is
 * answered, never whether a right one works — what stops guessing is the
 * token's 256 random bits.
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

/** What a token a request sent proved: the owner, or a wrong token and how long its address waits. */
export type TokenVerdict = { ok: true } | { ok: false; retryAfter: number };

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
 * api.use("/api/*", auth.require());
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
  const { retryAfter, strike } = strikeCounter(options);

  /**
   * Judges a token the request sent (a bearer header, `?token=`). The right one
   * passes whatever the address's count; a wrong one is a strike, or a 429's
   * wait once the address is past the limit.
   */
  function verify(c: Context, candidate: string): TokenVerdict {
    if (timingSafeEqual(digest(candidate), expected)) return { ok: true };
    if (!couldReadAnswer(c)) return { ok: false, retryAfter: 0 };
    const wait = retryAfter(c);
    if (wait === 0) strike(c);
    return { ok: false, retryAfter: wait };
  }

  /** The verdict on the request's bearer token, or null when it sent none. */
  function verifyBearer(c: Context): TokenVerdict | null {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    return bearer ? verify(c, bearer[1]) : null;
  }

  /** How the request authenticated, and how long it must wait when it sent a wrong token. */
  function authenticate(c: Context): Authentication {
    const bearer = verifyBearer(c);
    if (bearer) return bearer.ok ? { by: "token", retryAfter: 0 } : { by: null, ...bearer };
    return { by: hasSession(c) ? "session" : null, retryAfter: 0 };
  }

  /** How the request authenticated, if it did. */
  function check(c: Context): Authenticated {
    return authenticate(c).by;
  }

  function hasSession(c: Context): boolean {
    const cookie = getCookie(c, SESSION_COOKIE);
    return cookie !== undefined && timingSafeEqual(digest(cookie), sessionDigest);
  }

  return {
    check,
    verify,
    verifyBearer,
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
      return requireAuth(authenticate);
    },
  };
}

/** How a request authenticated, and how long it must wait when it sent a wrong token. */
interface Authentication {
  by: Authenticated;
  retryAfter: number;
}

/**
 * Wrong tokens counted per address: past `maxFailures` in a window, the
 * address waits until the window ends.
 */
function strikeCounter(options: AuthOptions) {
  const maxFailures = options.maxFailures ?? 20;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const strikes = new Map<string, Strikes>();

  const current = (address: string): Strikes | undefined => {
    const entry = strikes.get(address);
    if (entry && now() - entry.since >= windowMs) {
      strikes.delete(address);
      return undefined;
    }
    return entry;
  };

  return {
    /** Seconds the request's address must wait before a wrong token is judged again; 0 when none. */
    retryAfter(c: Context): number {
      const entry = current(addressOf(c));
      if (!entry || entry.count < maxFailures) return 0;
      return Math.max(1, Math.ceil((entry.since + windowMs - now()) / 1000));
    },

    /** Counts a wrong token against the request's address. */
    strike(c: Context): void {
      const address = addressOf(c);
      const entry = current(address);
      if (entry) entry.count++;
      else {
        // Old entries of other addresses go when a new one comes, so the map stays small.
        for (const key of strikes.keys()) current(key);
        strikes.set(address, { count: 1, since: now() });
      }
    },
  };
}

/** The address a request came from (Deno.serve's info); tests without one share a key. */
function addressOf(c: Context): string {
  return (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname ??
    "unknown";
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

/** The API's guard: a token or a session, and for a session's writes the page's header. */
function requireAuth(authenticate: (c: Context) => Authentication): MiddlewareHandler {
  return async function tokenAuth(c, next) {
    const { by, retryAfter } = authenticate(c);
    // Only a wrong token waits out its address's minute; the page's session is no guess.
    if (retryAfter > 0) return tooMany(c, retryAfter);
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
}

/**
 * Whether whoever sent a request can read the answer, which makes a wrong token
 * in it a guess: not a browser's cross-site or same-site request (the guard lets
 * only navigations through, whose answer the other site cannot see); yes for
 * the page's own scripts, the user's typing (`none`) and clients without Fetch
 * Metadata, such as curl.
 */
function couldReadAnswer(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  return site !== "cross-site" && site !== "same-site";
}

/** Whether a request carries a header only the page's own scripts send (a cross-site form cannot). */
export function fromPage(c: Context): boolean {
  return c.req.header(PAGE_HEADER) === "1" || c.req.header("hx-request") === "true";
}

/** Hashing first makes both sides the same length, which timingSafeEqual needs. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

/** The token's checks, as {@linkcode createAuth} builds them. */
export type Auth = ReturnType<typeof createAuth>;
