/**
 * The server's front door while hob starts. `hob serve` listens as soon as it
 * knows where (hob.yaml read), before it opens the home and loads the API:
 * the gate answers `/api/health` at once, behind the same guard as every
 * request, and holds every other request until the API is admitted — or
 * answers it 503 when hob could not start. Once admitted, requests go straight
 * to the API. Knows nothing of the runtime, so loading it costs little.
 */

import type { Context } from "hono";
import { VERSION } from "../version.ts";
import { errorShape } from "./error_shape.ts";
import { type GuardOptions, refusal, securityHeaders } from "./guard.ts";

/** A server's request handler. */
export type Fetch = (request: Request) => Response | Promise<Response>;

/** The front door of a starting server. */
export interface Gate {
  /** Hand this to `Deno.serve`. */
  fetch: Fetch;
  /** Lets requests through to `api`: those that waited, and every one after. */
  admit(api: Fetch): void;
  /** hob could not start: the requests that waited, and any later ones, get 503. */
  refuse(): void;
}

/** What `/api/health` answers: hob answers, its version, and how long it has been up. */
function healthBody(startedAt: number) {
  return { ok: true, version: VERSION, uptime_ms: Date.now() - startedAt };
}

/**
 * `/api/health` as the API's route.
 *
 * @example
 * ```ts
 * api.get("/api/health", health(Date.now()));
 * ```
 */
export function health(startedAt: number): (c: Context) => Response {
  return function health(c) {
    return c.json(healthBody(startedAt));
  };
}

/**
 * A request's path; null when the URL Deno made of it does not parse, as from
 * a Host header such as `[::1` (the API's guard refuses that request).
 *
 * @example
 * ```ts
 * pathOf(new Request("http://127.0.0.1:8484/api/health?x=1")); // "/api/health"
 * ```
 */
export function pathOf(request: Request): string | null {
  try {
    return new URL(request.url).pathname;
  } catch {
    return null;
  }
}

/**
 * Opens the gate: health now, everything else once the API is admitted. It
 * uses no HTTP framework, so `hob serve` answers health before Hono loads;
 * what it answers is what the API would (the API's guard, headers and shapes).
 *
 * @example
 * ```ts
 * const gate = openGate({ bind: "127.0.0.1" }, Date.now());
 * const server = Deno.serve({ port: 8484 }, gate.fetch);
 * gate.admit(createApi(hob, options).fetch);
 * ```
 */
export function openGate(options: GuardOptions, startedAt: number): Gate {
  const ready = Promise.withResolvers<Fetch>();
  // A start that fails may have had no request waiting.
  ready.promise.catch(() => {});
  let admitted: Fetch | undefined;
  const refused = refusal(options);

  function early(request: Request): Response | Promise<Response> {
    const pathname = pathOf(request);
    if (pathname === "/api/health" && (request.method === "GET" || request.method === "HEAD")) {
      const problem = refused(request);
      const response = problem
        ? json(errorShape(pathname, 403, "forbidden", problem), 403)
        : json(healthBody(startedAt), 200);
      return request.method === "HEAD" ? new Response(null, response) : response;
    }
    // The API has the same guard: a request that waited meets it there.
    return ready.promise.then(
      (api) => api(request),
      () =>
        json(
          errorShape(pathname ?? "/", 503, "unavailable", "hob could not start; its log says why"),
          503,
        ),
    );
  }

  return {
    fetch: (request) => admitted ? admitted(request) : early(request),
    admit(api) {
      admitted = api;
      ready.resolve(api);
    },
    refuse() {
      ready.reject(new Error("hob could not start"));
    },
  };
}

/** A JSON response with the headers every response of hob carries. */
function json(body: unknown, status: number): Response {
  const response = Response.json(body, { status });
  for (const [name, value] of securityHeaders(response.headers)) response.headers.set(name, value);
  return response;
}
