/**
 * One document (HTML, PDF, DOCX or CSV) parsed into Markdown. Only a document
 * process loads this module (documents_process.ts), so whatever a hostile file
 * makes a parser do stays in a process that can read, write and reach
 * nothing, and that hob kills when it takes too long or is stopped.
 *
 * The parsers are imported statically: a process without read permission
 * loads its whole module graph at start and nothing later.
 */

import { convertCsv } from "./document_csv.ts";
import { convertDocx } from "./document_docx.ts";
import { DocumentError } from "./document_errors.ts";
import { convertHtml } from "./document_html.ts";
import { convertPdf } from "./document_pdf.ts";
import { type ConversionReply, type ConversionRequest, tidyMarkdown } from "./documents.ts";

/** What each converter returns. */
type Converted = { title: string; markdown: string };

const CONVERTERS: Record<
  ConversionRequest["format"],
  (request: ConversionRequest) => Converted | Promise<Converted>
> = { html: convertHtml, pdf: convertPdf, docx: convertDocx, csv: convertCsv };

/**
 * The request converted, or the reason it could not be, in words the owner understands.
 *
 * @example
 * ```ts
 * const reply = await convert({ format: "csv", bytes, name: "a.csv", maxChars: 1_000 });
 * ```
 */
export async function convert(request: ConversionRequest): Promise<ConversionReply> {
  try {
    const { title, markdown } = await CONVERTERS[request.format](request);
    // Sent tidied and cut: a file may expand into far more Markdown than hob keeps.
    const tidy = tidyMarkdown(markdown);
    const more = tidy.length > request.maxChars + 1;
    return { ok: true, title, markdown: more ? tidy.slice(0, request.maxChars + 1) : tidy, more };
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
