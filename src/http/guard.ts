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
import { errorShape } from "./error_shape.ts";

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
 * api.use("*", guard({ bind: "127.0.0.1" }));
 * ```
 */
export function guard(options: GuardOptions): MiddlewareHandler {
  const refused = refusal(options);
  return async function hostGuard(c, next) {
    const problem = refused(c.req.raw);
    if (problem) {
      c.res = c.json(errorShape(c.req.path, 403, "forbidden", problem), 403);
    } else {
      await next();
    }
    setSecurityHeaders(c);
  };
}

/**
 * The guard without a framework, for the gate that answers health before
 * Hono loads: why a request is refused (a 403 names it), or null.
 *
 * @example
 * ```ts
 * refusal({ bind: "127.0.0.1" })(new Request("http://evil.example/")); // "Host 'evil.example' is not this hob; …"
 * ```
 */
export function refusal(options: GuardOptions): (request: Request) => string | null {
  const allowed = allowedHostNames(options);
  const configured = new Set(
    (options.allowedHosts ?? []).map(normalHost).filter((name): name is string => name !== null),
  );
  return (request) => refusalOf(request, allowed, configured);
}

/** Why a request is refused before it reaches a route, or null. */
function refusalOf(request: Request, allowed: Set<string>, configured: Set<string>): string | null {
  const header = (name: string) => request.headers.get(name) ?? undefined;
  const hostHeader = header("host") ?? new URL(request.url).host;
  const host = hostName(hostHeader);
  if (!host || !isAllowedHost(host, allowed)) {
    return `Host '${hostHeader}' is not this hob; add it to server.allowed_hosts if it is`;
  }
  const origin = header("origin");
  if (origin !== undefined) {
    const from = originHost(origin);
    // Same origin means the same host *and* port as the request was sent to; a name the user
    // listed in server.allowed_hosts (a proxy in front of hob) is trusted as it is.
    if (!from || (from !== hostHeader.trim().toLowerCase() && !configured.has(hostName(from)!))) {
      return `Origin '${origin}' may not call this hob`;
    }
    return null;
  }
  const site = header("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") {
    const navigation = header("sec-fetch-mode") === "navigate" && request.method === "GET";
    if (!navigation) return `A request from another site (${site}) may not call this hob`;
  }
  return null;
}

/** Headers every response carries; a route's own CSP (an upload's sandbox) stands. */
function setSecurityHeaders(c: Context): void {
  for (const [name, value] of securityHeaders(c.res.headers)) c.header(name, value);
}

/**
 * The security headers a response with `headers` still lacks: a CSP for a
 * page or for data, and the rest every response carries.
 *
 * @example
 * ```ts
 * securityHeaders(new Headers({ "content-type": "application/json" })); // [["Content-Security-Policy", DATA_CSP], …]
 * ```
 */
export function securityHeaders(headers: Headers): [string, string][] {
  const html = (headers.get("content-type") ?? "").startsWith("text/html");
  const all: [string, string][] = [
    ["Content-Security-Policy", html ? PAGE_CSP : DATA_CSP],
    ["X-Content-Type-Options", "nosniff"],
    ["X-Frame-Options", "DENY"],
    ["Referrer-Policy", "no-referrer"],
    ["Cross-Origin-Resource-Policy", "same-origin"],
  ];
  if (html) all.push(["Cross-Origin-Opener-Policy", "same-origin"], ["Cache-Control", "no-store"]);
  return all.filter(([name]) => !headers.has(name));
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
