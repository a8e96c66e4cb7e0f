/**
 * A tool process, as src/sandbox/child.ts runs it: its Worker's module
 * (process_worker.ts) and, for the direct way only, its tools
 * (process_tools.ts), imported then. main.ts and process_entry.ts start one
 * with it without loading any tool.
 */

import type { ProcessServes } from "../sandbox/child.ts";

/** A tool process. */
export const TOOL_PROCESS: ProcessServes = {
  workerName: "hob-tool",
  workerEntry: new URL("./process_worker.ts", import.meta.url),
  loadTools: () => import("./process_tools.ts").then((module) => module.PROCESS_TOOLS),
};
