/**
 * `GET /client.ts`: the typed client module (./client.ts) that user scripts
 * import from the running hob. It is embedded in the program, holds no secret
 * and is served without the token, because a script imports it before it can
 * send one. It must not know the API's handlers: it only serves the file.
 */

import { Hono } from "hono";
import clientSource from "./client.ts" with { type: "text" };

/** Deno runs a remote module as TypeScript when it is served as this. */
export const CLIENT_CONTENT_TYPE = "application/typescript; charset=utf-8";

let served: Promise<{ body: Uint8Array<ArrayBuffer>; etag: string }> | undefined;

/** The module's bytes and ETag, computed once. */
function clientModule(): Promise<{ body: Uint8Array<ArrayBuffer>; etag: string }> {
  served ??= (async () => {
    const body = new TextEncoder().encode(clientSource);
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
    const etag = `"${[...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
    return { body, etag };
  })();
  return served;
}

/**
 * Builds the route; mount it before the token is required.
 *
 * @example
 * ```ts
 * app.route("/", clientModuleRoutes());
 * // a script: import { connect } from "http://127.0.0.1:8484/client.ts";
 * ```
 */
export function clientModuleRoutes(): Hono {
  const app = new Hono();
  app.get("/client.ts", async (c) => {
    const { body, etag } = await clientModule();
    c.header("Content-Type", CLIENT_CONTENT_TYPE);
    c.header("ETag", etag);
    c.header("Cache-Control", "no-cache");
    c.header("X-Content-Type-Options", "nosniff");
    if (c.req.header("if-none-match") === etag) return c.body(null, 304);
    return c.body(body);
  });
  return app;
}
