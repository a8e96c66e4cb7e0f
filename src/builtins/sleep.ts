/**
 * The `sleep` tool: waits 1 s to 1 h, for an agent waiting on background work
 * (a task, a job, a build). The turn's stop ends it at once.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

/** The longest wait, in seconds: an hour. */
export const MAX_SLEEP_S = 3600;

export default defineTool({
  name: "sleep",
  description:
    "Wait a number of seconds (1 to 3600) before going on, e.g. while background work finishes. Stopping the turn ends the wait.",
  category: "time",
  side_effect: "none",
  untrusted_output: false,
  parameters: z.object({
    seconds: z.number()
      .min(1, "sleep waits at least 1 second")
      .max(MAX_SLEEP_S, `sleep waits at most ${MAX_SLEEP_S} seconds (an hour)`)
      .describe("How long to wait, 1 to 3600 seconds"),
  }),
  // The Worker outlives the wait it was asked for (the schema bounds it).
  timeout_ms: (args: { seconds: number }) => (args.seconds + 10) * 1000,
  async run({ seconds }, { signal }) {
    await wait(seconds * 1000, signal);
    return `Slept ${seconds} s.`;
  },
});

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stopped = () => {
      clearTimeout(timer);
      reject(new Error("Sleep stopped."));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stopped);
      resolve();
    }, ms);
    if (signal.aborted) return stopped();
    signal.addEventListener("abort", stopped, { once: true });
  });
}
