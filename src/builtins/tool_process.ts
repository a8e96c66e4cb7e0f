/**
 * A tool process, as child.ts runs it: its Worker's module (child_worker.ts)
 * and, for the direct way only, its tools (process_tools.ts), imported then.
 * main.ts and child_entry.ts start one with it without loading any tool.
 */

import type { ProcessServes } from "../sandbox/child.ts";

/** A tool process. */
export const TOOL_PROCESS: ProcessServes = {
  workerName: "hob-tool",
  workerEntry: new URL("./process_worker.ts", import.meta.url),
  loadTools: () => import("./process_tools.ts").then((module) => module.PROCESS_TOOLS),
};
