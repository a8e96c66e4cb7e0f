/**
 * The entry module of a document process started with `deno run`, and of the
 * Worker inside one that runs the worker way (a compiled hob's `hob
 * __documents`); documents_process.ts says what it serves. Nothing imports
 * it; hob starts it by URL.
 */

import { inWorker, runChild, serveInWorker } from "../tools/sandbox/child.ts";
import { DOCUMENT_PROCESS, DOCUMENT_TOOLS } from "./documents_process.ts";

if (inWorker()) serveInWorker(DOCUMENT_TOOLS);
else Deno.exit(await runChild(Deno.args, DOCUMENT_PROCESS));
