/** Route groups loaded on first use: loaded once, at the first request, and answering as if mounted. */

import { Hono } from "hono";
import { lazyRoutes } from "../../src/http/lazy.ts";
import { ApiError, handleError, handleNotFound } from "../../src/http/errors.ts";
import { tempApi } from "../helpers/api.ts";
import { assertEquals } from "../helpers/assert.ts";

/** An API with a lazy group at /g/*, a route after it, and a count of the group's loads. */
function apiWithLazyGroup() {
  const loads = { count: 0 };
  const api = new Hono();
  api.onError(handleError);
  api.notFound(handleNotFound);
  api.use("*", async function stamp(c, next) {
    await next();
    c.header("x-outer", "1");
  });
  const group = lazyRoutes(async () => {
    loads.count++;
    // As a module would load: the group is built after a turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const routes = new Hono();
    routes.get("/items/:id", (c) => c.json({ id: c.req.param("id"), env: c.env ?? null }));
    routes.post("/items", async (c) => c.json(await c.req.json(), 201));
    routes.get("/refused", () => {
      throw new ApiError(409, "conflict", "Refused by the group");
    });
    return new Hono().route("/g", routes);
  });
  api.all("/g/*", group);
  api.get("/g/after", (c) => c.text("after the group"));
  return { api, group, loads };
}

Deno.test("lazyRoutes loads its group at the first request, once", async (t) => {
  const { api, group, loads } = apiWithLazyGroup();

  await t.step("mounting loads nothing, nor does a request elsewhere", async () => {
    assertEquals((await api.request("/elsewhere")).status, 404);
    assertEquals(loads.count, 0);
  });

  await t.step("concurrent first requests share one load", async () => {
    const responses = await Promise.all([api.request("/g/items/1"), api.request("/g/items/2")]);
    assertEquals(await Promise.all(responses.map((r) => r.json())), [
      { id: "1", env: null },
      { id: "2", env: null },
    ]);
    assertEquals(loads.count, 1);
  });

  await t.step("later requests and load() reuse the group", async () => {
    assertEquals((await api.request("/g/items/3")).status, 200);
    await group.load();
    assertEquals(loads.count, 1);
  });
});

Deno.test("lazyRoutes answers as the group would mounted with route()", async (t) => {
  const { api } = apiWithLazyGroup();

  await t.step("the request's body, env and path parameters reach the group", async () => {
    const posted = await api.request("/g/items", { method: "POST", body: '{"name":"a"}' });
    assertEquals([posted.status, await posted.json()], [201, { name: "a" }]);
    const env = { remoteAddr: { hostname: "127.0.0.1" } };
    const got = await api.request("/g/items/7", {}, env);
    assertEquals(await got.json(), { id: "7", env });
  });

  await t.step("the API's middleware wraps the group's answer", async () => {
    const response = await api.request("/g/items/1");
    assertEquals(response.headers.get("x-outer"), "1");
    await response.body?.cancel();
  });

  await t.step("a path the group does not serve goes on to the API's routes", async () => {
    const after = await api.request("/g/after");
    assertEquals([after.status, await after.text()], [200, "after the group"]);
    const missing = await api.request("/g/nothing");
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).error.message, "No route for GET /g/nothing");
    const wrongMethod = await api.request("/g/items/1", { method: "DELETE" });
    assertEquals(wrongMethod.status, 404);
    await wrongMethod.body?.cancel();
  });

  await t.step("an error the group throws reaches the API's onError", async () => {
    const response = await api.request("/g/refused");
    assertEquals(response.status, 409);
    assertEquals((await response.json()).error, {
      code: "conflict",
      message: "Refused by the group",
    });
    assertEquals(response.headers.get("x-outer"), "1");
  });

  await t.step("HEAD is answered as GET without a body", async () => {
    const response = await api.request("/g/items/1", { method: "HEAD" });
    assertEquals([response.status, await response.text()], [200, ""]);
  });
});

Deno.test("lazyRoutes tries a failed load again at the next request", async () => {
  let attempts = 0;
  const api = new Hono();
  api.onError(handleError);
  const quiet = console.error;
  console.error = () => {};
  try {
    api.all(
      "/g/*",
      lazyRoutes(() => {
        attempts++;
        if (attempts === 1) return Promise.reject(new Error("the module did not load"));
        return Promise.resolve(new Hono().get("/g/x", (c) => c.text("loaded")));
      }),
    );
    const failed = await api.request("/g/x");
    assertEquals(failed.status, 500);
    await failed.body?.cancel();
    const loaded = await api.request("/g/x");
    assertEquals([loaded.status, await loaded.text()], [200, "loaded"]);
    assertEquals(attempts, 2);
  } finally {
    console.error = quiet;
  }
});

Deno.test("createApi answers the lazily mounted /api, /v1 and /mcp routes", async () => {
  await using api = await tempApi("");
  // Each is behind its group's handler until this request loads the group.
  const usage = await api.call("/api/usage");
  assertEquals(usage.status, 200);
  await usage.body?.cancel();
  const models = await api.call("/v1/models");
  assertEquals(models.status, 200);
  assertEquals((await models.json()).object, "list");
  const mcp = await api.call("/mcp");
  assertEquals(mcp.status, 405);
  await mcp.body?.cancel();
});
