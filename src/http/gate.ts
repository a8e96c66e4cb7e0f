/**
 * The server's front door while hob starts. `hob serve` listens as soon as it
 * knows where (hob.yaml read), before it opens the home and loads the API:
 * the gate answers `/api/health` at once, behind the same guard as every
 * request, and holds every other request until the app is admitted — or
 * answers it 503 when hob could not start. Once admitted, requests go straight
 * to the app. Knows nothing of the runtime, so loading it costs little.
 */

import { type Context, Hono } from "hono";
import { VERSION } from "../version.ts";
import { errorResponse } from "./errors.ts";
import { guard, type GuardOptions } from "./guard.ts";

/** A server's request handler. */
export type Fetch = (request: Request) => Response | Promise<Response>;

/** The front door of a starting server. */
export interface Gate {
  /** Hand this to `Deno.serve`. */
  fetch: Fetch;
  /** Lets requests through to `app`: those that waited, and every one after. */
  admit(app: Fetch): void;
  /** hob could not start: the requests that waited, and any later ones, get 503. */
  refuse(): void;
}

/**
 * `/api/health`: hob answers, its version, and how long it has been up.
 *
 * @example
 * ```ts
 * app.get("/api/health", health(Date.now()));
 * ```
 */
export function health(startedAt: number): (c: Context) => Response {
  return function health(c) {
    return c.json({ ok: true, version: VERSION, uptime_ms: Date.now() - startedAt });
  };
}

/**
 * Opens the gate: health now, everything else once the app is admitted.
 *
 * @example
 * ```ts
 * const gate = openGate({ bind: "127.0.0.1" }, Date.now());
 * const server = Deno.serve({ port: 8484 }, gate.fetch);
 * gate.admit(createApp(runtime, options).fetch);
 * ```
 */
export function openGate(options: GuardOptions, startedAt: number): Gate {
  const ready = Promise.withResolvers<Fetch>();
  // A start that fails may have had no request waiting.
  ready.promise.catch(() => {});
  let admitted: Fetch | undefined;

  const early = new Hono();
  early.use("/api/health", guard(options));
  early.get("/api/health", health(startedAt));
  // The app has the same guard: a request that waited meets it there.
  early.all("*", async function waitForApp(c) {
    try {
      return await (await ready.promise)(c.req.raw);
    } catch {
      return errorResponse(c, 503, "unavailable", "hob could not start; its log says why");
    }
  });

  return {
    fetch: (request) => admitted ? admitted(request) : early.fetch(request),
    admit(app) {
      admitted = app;
      ready.resolve(app);
    },
    refuse() {
      ready.reject(new Error("hob could not start"));
    },
  };
}
