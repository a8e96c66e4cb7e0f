/**
 * The modules hob's sandbox starts to run tools, handed to its spawner
 * (src/sandbox/spawner.ts), which imports no tool: a tool Worker serves the
 * built-in tools of the catalog (worker_entry.ts), a tool process code from
 * outside hob and run_code (process_entry.ts; a compiled hob starts `hob
 * __sandbox` instead, which main.ts runs with the same tools). Naming them
 * loads none of them.
 */

import type { SandboxEntries } from "../sandbox/spawner.ts";

/** hob's tool Worker and tool process modules. */
export const SANDBOX_ENTRIES: SandboxEntries = {
  worker: new URL("./worker_entry.ts", import.meta.url),
  process: new URL("./process_entry.ts", import.meta.url),
};
