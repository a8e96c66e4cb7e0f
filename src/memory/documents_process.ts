/**
 * A document process, as src/sandbox/child.ts runs it: the worker way,
 * the conversion in a Worker with no permissions (documents_worker.ts), the
 * process's memory capped: a parser a crafted file sends spinning is killed
 * with it, one that fills its memory ends only it. Its tools
 * (document_tools.ts) load only where they run. main.ts and
 * documents_entry.ts start one with it without loading any parser.
 */

import type { ProcessServes } from "../sandbox/child.ts";

/** A document process. */
export const DOCUMENT_PROCESS: ProcessServes = {
  workerName: "hob-documents",
  workerEntry: new URL("./documents_worker.ts", import.meta.url),
  loadTools: () => import("./document_tools.ts").then((module) => module.DOCUMENT_TOOLS),
};
