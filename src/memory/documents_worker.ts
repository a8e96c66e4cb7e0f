/**
 * The Worker inside a document process (documents_process.ts): it parses one
 * document with no permissions at all. The parsers are imported statically:
 * a Worker without read permission loads nothing later. Nothing imports it;
 * src/sandbox/child.ts starts it by URL.
 */

import { serveInWorker } from "../sandbox/child.ts";
import { DOCUMENT_TOOLS } from "./document_tools.ts";

serveInWorker(DOCUMENT_TOOLS);
