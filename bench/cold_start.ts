/**
 * Cold start: from launching `hob serve` (as `deno task hob serve` does, with
 * the same permission flags) to `/api/health` answering 200. Runs against a
 * fresh home each time, with Deno's module cache warm, as after installation.
 */

import { HOB_FLAGS } from "../tests/helpers/hob_process.ts";
import { ms, percentile } from "./stats.ts";

/** Launches measured. */
const RUNS = 9;
const MAIN = new URL("../main.ts", import.meta.url).pathname;

export interface ColdStartResult {
  runs: number;
  p50: number;
  min: number;
  max: number;
}

/** Launches hob `RUNS` times and measures launch-to-health. */
export async function measureColdStart(): Promise<ColdStartResult> {
  const times: number[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    const home = await Deno.makeTempDir({ prefix: "hob-cold-" });
    // A fixed free port lets us poll from the moment of launch, without reading stdout.
    const port = freePort();
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...HOB_FLAGS, MAIN, "serve", "--home", home, "--port", String(port)],
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
    try {
      while (true) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/health`);
          await response.body?.cancel();
          if (response.ok) break;
        } catch { /* not listening yet */ }
        if (performance.now() - started > 20_000) {
          throw new Error("hob serve did not answer in 20 s");
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      // The first launch fills Deno's caches; it is not counted.
      if (run > 0) times.push(performance.now() - started);
    } finally {
      child.kill("SIGKILL");
      await child.status;
      await Deno.remove(home, { recursive: true });
    }
  }
  return {
    runs: RUNS,
    p50: percentile(times, 50),
    min: Math.min(...times),
    max: Math.max(...times),
  };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Prints the result line. */
export function formatColdStart(result: ColdStartResult): string {
  return `cold start to /api/health: p50 ${ms(result.p50)} (min ${ms(result.min)}, max ${
    ms(result.max)
  }; ${result.runs} launches)`;
}

if (import.meta.main) console.log(formatColdStart(await measureColdStart()));
