/** The API's error handler: storage problems as 507/503 with their codes, other errors as before. */

import { Hono } from "hono";
import { ApiError, handleError, streamErrorEvent } from "../../src/http/errors.ts";
import { MemoryWriteError } from "../../src/memory/files.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";

function appThrowing(error: Error): Hono {
  const api = new Hono();
  api.onError(handleError);
  api.post("/x", () => {
    throw error;
  });
  return api;
}

Deno.test("handleError answers a full disk with 507 and a read-only home with 503, without a stack", async (t) => {
  const quiet = console.error;
  const logged: unknown[][] = [];
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    for (
      const [name, error, status, code] of [
        ["SQLITE_FULL", new Error("database or disk is full"), 507, "storage_full"],
        [
          "ENOSPC under a memory write",
          new MemoryWriteError("Cannot write MEMORY.md", {
            cause: Object.assign(new Error("No space left on device (os error 28)"), {
              code: "ENOSPC",
            }),
          }),
          507,
          "storage_full",
        ],
        [
          "SQLITE_READONLY",
          new Error("attempt to write a readonly database"),
          503,
          "storage_read_only",
        ],
        [
          "SQLITE_BUSY: another program holds hob.db's write lock",
          Object.assign(new Error("database is locked"), { errcode: 5 }),
          503,
          "store_busy",
        ],
        ["a bug", new TypeError("x is undefined"), 500, "internal"],
        [
          "the caller's mistake",
          new ApiError(400, "invalid_request", "bad"),
          400,
          "invalid_request",
        ],
      ] as const
    ) {
      await t.step(name, async () => {
        const response = await appThrowing(error).request("/x", { method: "POST" });
        assertEquals(response.status, status);
        const body = await response.json();
        assertEquals(body.error.code, code);
        if (status === 507) assertMatch(body.error.message, /the disk is full/);
        if (code === "storage_read_only") assertMatch(body.error.message, /read-only/);
        // Busy for now: when to try again is said, in words and in Retry-After.
        if (code === "store_busy") {
          assertMatch(body.error.message, /^hob\.db is busy: another program .* try again/);
          assertEquals(response.headers.get("retry-after"), "5");
        } else assertEquals(response.headers.get("retry-after"), null);
      });
    }
  } finally {
    console.error = quiet;
  }
  // Storage problems are logged as one line; only the bug gets its stack.
  assertEquals(logged.filter((args) => args.length === 1).length, 4);
  assertEquals(logged.filter((args) => args.some((a) => a instanceof TypeError)).length, 1);
});

Deno.test("streamErrorEvent gives a stream the error event a JSON client would get", () => {
  const quiet = console.error;
  console.error = () => {};
  try {
    assertEquals(streamErrorEvent(new Error("database or disk is full"), "POST /api/chat"), {
      type: "error",
      code: "storage_full",
      message: "hob cannot write to its home: the disk is full — free some space, then try again",
    });
    assertEquals(streamErrorEvent(new Error("database is locked"), "POST /api/chat"), {
      type: "error",
      code: "store_busy",
      message:
        "hob.db is busy: another program is holding its write lock (a sqlite3 shell in a transaction, a backup tool) — try again in a few seconds",
    });
    assertEquals(streamErrorEvent(new TypeError("oops"), "POST /api/chat").code, "internal");
  } finally {
    console.error = quiet;
  }
});
