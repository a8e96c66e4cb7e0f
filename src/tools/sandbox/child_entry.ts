/**
 * The entry module of a tool process started with `deno run` (child.ts says
 * what runs there), and of the Worker inside a tool process that runs the
 * worker way. Nothing imports it; hob starts it by URL.
 */

import { inWorker, runChild, serveInWorker } from "./child.ts";
import { PROCESS_TOOLS, TOOL_PROCESS } from "./process_tools.ts";

if (inWorker()) serveInWorker(PROCESS_TOOLS);
else Deno.exit(await runChild(Deno.args, TOOL_PROCESS));
