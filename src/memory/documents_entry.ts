/**
 * The entry module of a document process started with `deno run`
 * (documents_process.ts says what it is; its Worker runs documents_worker.ts).
 * Nothing imports it; hob starts it by URL.
 */

import { runChild } from "../sandbox/child.ts";
import { DOCUMENT_PROCESS } from "./documents_process.ts";

Deno.exit(await runChild(Deno.args, DOCUMENT_PROCESS));
