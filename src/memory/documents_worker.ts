/// <reference lib="deno.worker" />
/**
 * The Worker that parses one document (HTML, PDF, DOCX or CSV) into Markdown.
 * documents.ts starts it with no permissions and terminates it after one
 * answer, so whatever a hostile file makes a parser do stays inside a thread
 * that can read, write and reach nothing.
 *
 * The parsers are imported statically: hob runs with lazy dynamic imports, and
 * a Worker without read permission cannot load a module that late.
 */

import { convertCsv } from "./document_csv.ts";
import { convertDocx } from "./document_docx.ts";
import { DocumentError } from "./document_errors.ts";
import { convertHtml } from "./document_html.ts";
import { convertPdf } from "./document_pdf.ts";
import type { ConversionReply, ConversionRequest } from "./documents.ts";

/** What each converter returns. */
type Converted = { title: string; markdown: string };

const CONVERTERS: Record<
  ConversionRequest["format"],
  (request: ConversionRequest) => Converted | Promise<Converted>
> = { html: convertHtml, pdf: convertPdf, docx: convertDocx, csv: convertCsv };

/** The request converted, or the reason it could not be, in words the owner understands. */
async function convert(request: ConversionRequest): Promise<ConversionReply> {
  try {
    return { ok: true, ...await CONVERTERS[request.format](request) };
  } catch (error) {
    if (error instanceof DocumentError) {
      return { ok: false, problem: error.problem, message: error.message };
    }
    return {
      ok: false,
      problem: "corrupt",
      message: `hob could not read ${request.name} as ${request.format.toUpperCase()}: ` +
        `${(error as Error).message ?? String(error)}. The file may be damaged.`,
    };
  }
}

self.onmessage = async (event: MessageEvent<ConversionRequest>) => {
  self.postMessage(await convert(event.data));
};
