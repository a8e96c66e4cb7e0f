/**
 * The entry module of a tool process started with `deno run`
 * (src/sandbox/child.ts says what runs there; its Worker, the worker way, runs
 * process_worker.ts). Nothing imports it; hob starts it by URL.
 */

import { runChild } from "../sandbox/child.ts";
import { TOOL_PROCESS } from "./tool_process.ts";

Deno.exit(await runChild(Deno.args, TOOL_PROCESS));
