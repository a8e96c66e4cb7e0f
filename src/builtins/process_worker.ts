/**
 * The Worker inside a tool process run the worker way (src/sandbox/child.ts):
 * it serves the call with exactly the tool's permissions. Its tools are
 * imported statically: a Worker without read permission loads nothing later.
 * Nothing imports it; child.ts starts it by URL (tool_process.ts).
 */

import { serveInWorker } from "../sandbox/child.ts";
import { PROCESS_TOOLS } from "./process_tools.ts";

serveInWorker(PROCESS_TOOLS);
