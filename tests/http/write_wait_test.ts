/** Requests that write wait for hob.db's lock; past the wait a 503 that says it is busy. */

import { Hono } from "hono";
import { handleError } from "../../src/http/errors.ts";
import { waitToWrite } from "../../src/http/write_wait.ts";
import { StorageError } from "../../src/home/storage.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { until } from "../helpers/until.ts";

/** An API whose every route answers "ran", behind the wait; `writable` is what the wait awaits. */
function apiWaiting(writable: () => Promise<void>): { api: Hono; waits: string[]; ran: string[] } {
  const waits: string[] = [];
  const ran: string[] = [];
  const api = new Hono();
  api.onError(handleError);
  api.use(
    "*",
    waitToWrite((signal) => {
      waits.push(signal instanceof AbortSignal ? "waited" : "no signal");
      return writable();
    }),
  );
  api.all("*", (c) => {
    ran.push(c.req.path);
    return c.text("ran");
  });
  return { api, waits, ran };
}

Deno.test("waitToWrite holds a write until hob.db can be written, and lets reads by", async (t) => {
  await t.step("a POST runs once the lock is free", async () => {
    let free!: () => void;
    const { api, waits, ran } = apiWaiting(() => new Promise((resolve) => free = resolve));
    const answering = api.request("/api/tasks", { method: "POST" });
    await until(() => waits.length === 1, "the wait for the lock");
    assertEquals(waits, ["waited"]);
    assertEquals(ran, []);
    free();
    assertEquals(await (await answering).text(), "ran");
  });
  await t.step("GET, HEAD, /mcp and speech do not wait", async () => {
    const { api, waits } = apiWaiting(() => Promise.reject(new Error("never asked")));
    for (
      const [method, path] of [
        ["GET", "/api/conversations"],
        ["HEAD", "/api/tasks"],
        ["POST", "/mcp"],
        ["POST", "/api/speech"],
        ["POST", "/v1/audio/transcriptions"],
      ]
    ) {
      const response = await api.request(path, { method });
      assertEquals(response.status, 200, `${method} ${path}`);
    }
    assertEquals(waits, []);
  });
});

Deno.test("waitToWrite answers 503 store_busy with Retry-After when the wait is over", async () => {
  const quiet = console.error;
  console.error = () => {};
  try {
    const { api } = apiWaiting(() => Promise.reject(new StorageError("busy", undefined)));
    for (const [method, path] of [["POST", "/api/chat"], ["DELETE", "/api/tasks/1"]]) {
      const response = await api.request(path, { method });
      assertEquals(response.status, 503);
      assertEquals(response.headers.get("retry-after"), "5");
      const body = await response.json();
      assertEquals(body.error.code, "store_busy");
      assertMatch(body.error.message, /^hob\.db is busy: another program .* try again/);
    }
  } finally {
    console.error = quiet;
  }
});
