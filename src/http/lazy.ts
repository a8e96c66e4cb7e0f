/**
 * Route groups that load on first use: a thin handler stands where a group
 * is mounted and imports the group's modules when a request first reaches it,
 * so `hob serve` answers its first chat without loading what no chat needs.
 * It knows no group: src/http/api.ts says which there are and where they go.
 */

import type { Context, Hono, MiddlewareHandler, Next } from "hono";

/** A handler that stands for a route group until the group is loaded. */
export interface LazyRoutes extends MiddlewareHandler {
  /** Loads the group (once) without a request; its routes carry their full paths. */
  load(): Promise<Hono>;
}

/** Thrown by a loaded group that has no route for a request, so its handler steps aside. */
class NoRoute extends Error {
  override name = "NoRoute";
}

/**
 * A handler that answers with the routes `build` returns, built at the first
 * request it sees. Register it on the paths the group's routes live under
 * (`api.all("/v1/*", …)`); the group's routes carry their full paths.
 *
 * 1. One load: concurrent first requests share it, later ones reuse the group;
 *    a load that failed is tried again by the next request.
 * 2. As if mounted with `route()`: a request the group has no route for
 *    goes on (`next()`) to the API's later routes and its not-found answer,
 *    and an error a route throws reaches the API's `onError`.
 * 3. The same request: the group sees the API's request (with any body the
 *    API's limits have read) and its env (the connection's address).
 *
 * A header the API's middleware sets before `next()` is not on the group's
 * responses, as it is not on any `Response` a handler builds itself.
 *
 * @example
 * ```ts
 * api.all("/v1/*", lazyRoutes(async () => {
 *   const { openAiRoutes } = await import("./openai_api.ts");
 *   return new Hono().route("/v1", openAiRoutes(hob));
 * }));
 * ```
 */
export function lazyRoutes(build: () => Promise<Hono>): LazyRoutes {
  let loading: Promise<Hono> | undefined;
  const load = () =>
    loading ??= build().then(transparent, (error) => {
      loading = undefined;
      throw error;
    });
  async function lazyRoutes(c: Context, next: Next): Promise<Response | void> {
    const group = await load();
    try {
      return await group.fetch(c.req.raw, c.env);
    } catch (error) {
      if (!(error instanceof NoRoute)) throw error;
      await next();
    }
  }
  return Object.assign(lazyRoutes, { load });
}

/** The group's misses and errors handed back to the routes that mounted it. */
function transparent(group: Hono): Hono {
  group.onError((error) => {
    throw error;
  });
  group.notFound(() => {
    throw new NoRoute();
  });
  return group;
}
