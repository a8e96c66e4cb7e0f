/**
 * A scheduled job whose model goes quiet mid-answer: the provider's idle
 * timeout ends the run as failed, with the reason, so the job's next run
 * runs instead of being skipped as "still going".
 */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { tempHome } from "../helpers/home.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";

/** How long the test waits for a run before it calls the run hung. */
const HUNG_MS = 60_000;

Deno.test("a job whose model stalls is marked failed, and its next run runs", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ text: Array.from({ length: 20 }, (_, i) => `tok${i} `), stall: true }],
    fallback: { text: "All done." },
  });
  await using home = await tempHome(`model: fake/fake-model
providers:
  fake: { type: openai, base_url: "${fake.url}", api_key: test, max_retries: 0, idle_timeout_ms: 1000 }
heartbeat: { enabled: false }
tasks: { workers: 0 }
memory: { embedder: none }`);
  let now = new Date("2026-11-26T10:00:00Z");
  const runtime = await openRuntime({ home: home.home, env: {}, clock: { now: () => now } });
  try {
    const { scheduler, jobs } = runtime.background;
    const job = runtime.app.schedules.add({
      name: "digest",
      prompt: "Digest",
      schedule: "every 10m",
    });
    const runAt = async (at: string) => {
      now = new Date(at);
      await scheduler.tick();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`the run at ${at} hung`)), HUNG_MS)
      );
      await Promise.race([scheduler.idle(), hung]).finally(() => clearTimeout(timer));
    };

    await runAt("2026-11-26T10:10:00Z");
    const [stalled] = jobs.runs(job.id);
    assertEquals(stalled.status, "error");
    assertMatch(
      stalled.error ?? "",
      /stopped sending mid-answer.*providers\.fake\.idle_timeout_ms/,
    );

    await runAt("2026-11-26T10:20:00Z");
    const runs = jobs.runs(job.id).reverse();
    assertEquals(runs.map((run) => run.status), ["error", "ok"]);
    assertEquals(runs[1].result, "All done.");
  } finally {
    await runtime.close();
  }
});
