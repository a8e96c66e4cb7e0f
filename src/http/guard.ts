/**
 * The first thing every request meets, before any route or the token:
 *
 * - **Host**: must name this machine. A web page that rebinds its own domain to
 *   127.0.0.1 (DNS rebinding) sends its domain as `Host`, so it stops here.
 *   Allowed: the loopback names, IP literals (a rebinding attack always has a
 *   domain name), `server.host` and the names in `server.allowed_hosts`.
 * - **Origin**: a browser's request from another origin — another site, or
 *   another port on this machine — is refused. So is `Origin: null`. Browsers
 *   that send no Origin (a no-cors GET) still send `Sec-Fetch-Site`; only a
 *   cross-site *navigation* (a link to the page) gets through, and it carries
 *   no session cookie (SameSite=Strict), so it reaches only the sign-in page;
 *   the site that sent it cannot read the answer, so a wrong `?token=` in it
 *   is no guess and auth.ts does not count it against the address.
 * - **Security headers** on every response, errors included.
 *
 * Refusals answer in the shape of the API asked: JSON-RPC for `/mcp`, OpenAI's
 * for `/v1`, hob's `{"error": {"code", "message"}}` elsewhere.
 */

import type { Context, MiddlewareHandler } from "hono";
import { errorResponse } from "./errors.ts";

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
/** The wildcard addresses: listening on every interface names no host. */
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/** The CSP of the page: no script but hob's own, no third-party origin, no framing. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  // The page plays the speech it fetches from /v1/audio/speech as a blob: URL.
  "media-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
/** The CSP of everything that is not a page: nothing may run, nothing may frame it. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** What the guard allows. */
export interface GuardOptions {
  /** The address hob listens on (`server.host`). */
  bind: string;
  /** More host names clients may use (`server.allowed_hosts`), e.g. a LAN name. */
  allowedHosts?: string[];
}

/**
 * The host names a request's `Host` may carry.
 *
 * @example
 * ```ts
 * allowedHostNames({ bind: "127.0.0.1" }).has("localhost"); // true
 * ```
 */
export function allowedHostNames(options: GuardOptions): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  for (const name of [options.bind, ...(options.allowedHosts ?? [])]) {
    const normal = normalHost(name);
    if (normal && !WILDCARDS.has(normal)) names.add(normal);
  }
  return names;
}

/**
 * Whether a host name (as {@linkcode hostName} gives it) may reach this hob.
 *
 * @example
 * ```ts
 * isAllowedHost("evil.example", allowedHostNames({ bind: "127.0.0.1" })); // false
 * ```
 */
export function isAllowedHost(host: string, allowed: Set<string>): boolean {
  return allowed.has(host) || isIpLiteral(host);
}

/**
 * The Host/Origin guard and the security headers, as one middleware.
 *
 * @example
 * ```ts
 * app.use("*", guard({ bind: "127.0.0.1" }));
 * ```
 */
export function guard(options: GuardOptions): MiddlewareHandler {
  const allowed = allowedHostNames(options);
  const configured = new Set(
    (options.allowedHosts ?? []).map(normalHost).filter((name): name is string => name !== null),
  );
  return async function hostGuard(c, next) {
    const problem = refusal(c, allowed, configured);
    if (problem) {
      c.res = errorResponse(c, 403, "forbidden", problem);
    } else {
      await next();
    }
    setSecurityHeaders(c);
  };
}

/** Why a request is refused before it reaches a route, or null. */
function refusal(c: Context, allowed: Set<string>, configured: Set<string>): string | null {
  const hostHeader = c.req.header("host") ?? new URL(c.req.url).host;
  const host = hostName(hostHeader);
  if (!host || !isAllowedHost(host, allowed)) {
    return `Host '${hostHeader}' is not this hob; add it to server.allowed_hosts if it is`;
  }
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    const from = originHost(origin);
    // Same origin means the same host *and* port as the request was sent to; a name the user
    // listed in server.allowed_hosts (a proxy in front of hob) is trusted as it is.
    if (!from || (from !== hostHeader.trim().toLowerCase() && !configured.has(hostName(from)!))) {
      return `Origin '${origin}' may not call this hob`;
    }
    return null;
  }
  const site = c.req.header("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") {
    const navigation = c.req.header("sec-fetch-mode") === "navigate" && c.req.method === "GET";
    if (!navigation) return `A request from another site (${site}) may not call this hob`;
  }
  return null;
}

/** Headers every response carries; a route's own CSP (an upload's sandbox) stands. */
function setSecurityHeaders(c: Context): void {
  const headers = c.res.headers;
  const html = (headers.get("content-type") ?? "").startsWith("text/html");
  const set = (name: string, value: string) => {
    if (!headers.has(name)) c.header(name, value);
  };
  set("Content-Security-Policy", html ? PAGE_CSP : DATA_CSP);
  set("X-Content-Type-Options", "nosniff");
  set("X-Frame-Options", "DENY");
  set("Referrer-Policy", "no-referrer");
  set("Cross-Origin-Resource-Policy", "same-origin");
  if (html) {
    set("Cross-Origin-Opener-Policy", "same-origin");
    set("Cache-Control", "no-store");
  }
}

/**
 * The host name of a `Host` header value, lower-cased and without the port
 * (`127.0.0.1:8484` → `127.0.0.1`, `[::1]:80` → `[::1]`); null when malformed.
 *
 * @example
 * ```ts
 * hostName("LOCALHOST:8484"); // "localhost"
 * ```
 */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^(\[[0-9a-f:.]+\]|[^:\[\]\s/@]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match ? match[1].toLowerCase().replace(/\.$/, "") : null;
}

/** `host[:port]` of an Origin header (lower-case), or null for `null` and anything not http(s). */
function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

function normalHost(name: string): string | null {
  const trimmed = name.trim().toLowerCase();
  if (!trimmed) return null;
  // A bare IPv6 address (as server.host may be written) gets its brackets.
  return trimmed.includes(":") && !trimmed.startsWith("[") ? `[${trimmed}]` : hostName(trimmed);
}

function isIpLiteral(host: string): boolean {
  if (host.startsWith("[") && host.endsWith("]")) return true;
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) &&
    host.split(".").every((part) => Number(part) <= 255);
}
