/** A tool Worker that never becomes ready ends its call at the call's time, not never. */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { SANDBOX_ENTRIES } from "../../src/builtins/sandbox_entries.ts";
import { NO_PERMISSIONS } from "../../src/sandbox/permissions.ts";
import { ToolSpawner } from "../../src/sandbox/spawner.ts";
import type { ToSandbox } from "../../src/sandbox/protocol.ts";

Deno.test("a Worker that never says it is ready times the call out, and a stop ends the wait", async () => {
  const spawner = new ToolSpawner({
    maxWarm: 0,
    entries: {
      worker: new URL("../fixtures/sandbox/never_ready_worker.ts", import.meta.url),
      process: SANDBOX_ENTRIES.process,
    },
  });
  try {
    const message: ToSandbox = {
      type: "call",
      tool: { kind: "builtin", name: "get_time" },
      args: {},
      context: {
        conversation_id: "",
        now: new Date().toISOString(),
        workspace: "/tmp",
        roots: [],
        home: "/tmp",
        settings: {},
        max_output_chars: 1_000,
      },
    };
    const timedOut = await spawner.exchange(NO_PERMISSIONS, message, { timeoutMs: 300 });
    assertEquals(timedOut.ok, false);
    if (!timedOut.ok) {
      assertEquals(timedOut.reason, "timeout");
      assertMatch(timedOut.error, /did not start within/);
    }
    const stop = new AbortController();
    const stopped = spawner.exchange(NO_PERMISSIONS, message, {
      timeoutMs: 600_000,
      signal: stop.signal,
    });
    stop.abort();
    const result = await stopped;
    assertEquals(result.ok ? "ok" : result.reason, "aborted");
  } finally {
    spawner.close();
  }
});
