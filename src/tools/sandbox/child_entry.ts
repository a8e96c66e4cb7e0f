/**
 * The entry module of a tool process started with `deno run` (child.ts says
 * what runs there), and of the Worker inside a tool process that runs the
 * worker way. Nothing imports it; hob starts it by URL.
 */

import { inWorker, runChild, serveInWorker } from "./child.ts";

if (inWorker()) serveInWorker();
else Deno.exit(await runChild(Deno.args));
