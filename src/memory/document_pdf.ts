/**
 * PDF into Markdown: the text layer of each page, read with PDF.js (the
 * serverless build unpdf ships: no worker file, no fetch, no eval), one
 * `## Page N` section per page. Runs only in a document process; knows
 * nothing of memory.
 *
 * Why page headings: hob's chunker cuts at headings and gives each chunk its
 * heading path, so a chunk found later says "Page 7" and the owner can open
 * the PDF there. A PDF's own headings are only larger text, which is not kept.
 */

import { getDocumentProxy } from "unpdf";
import { DocumentError } from "./document_errors.ts";
import type { ConversionRequest } from "./documents.ts";

/** The parts of a PDF.js text item used here. */
interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** A page's text, lines as the PDF ends them, spaces collapsed. */
function pageText(items: TextItem[]): string {
  const text = items.filter((item) => typeof item.str === "string")
    .map((item) => item.str + (item.hasEOL ? "\n" : "")).join("");
  return text.split("\n").map((line) => line.replace(/\s+/g, " ").trim())
    // Only what would make a heading or a code block: pages must stay the only headings.
    .map((line) => line.replace(/^(#|```|~~~|=+$|-+$)/, "\\$1"))
    .join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** PDF.js's own errors, as the owner can understand them. */
function explain(error: unknown, name: string): Error {
  const kind = (error as Error)?.name;
  if (kind === "PasswordException") {
    return new DocumentError(
      "encrypted",
      `${name} is protected by a password; hob cannot read it. Save a copy without the password.`,
    );
  }
  if (kind === "InvalidPDFException" || kind === "FormatError" || kind === "MissingPDFException") {
    return new DocumentError(
      "corrupt",
      `${name} is not a readable PDF: ${
        (error as Error).message
      } The file may be damaged or cut short.`,
      { cause: error },
    );
  }
  return error as Error;
}

/**
 * A PDF's text as Markdown, a `## Page N` section per page with text, and its
 * title from its metadata. Stops reading pages past `maxChars`.
 *
 * @example
 * ```ts
 * const { markdown } = await convertPdf({ format: "pdf", bytes, name: "report.pdf", maxChars });
 * ```
 */
export async function convertPdf(
  request: ConversionRequest,
): Promise<{ title: string; markdown: string }> {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(request.bytes), {
      // PDF.js 5 compiles no code from a file (no eval); fetching is off, and the process has no network.
      useWorkerFetch: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    });
  } catch (error) {
    throw explain(error, request.name);
  }
  const info = (await pdf.getMetadata().catch(() => undefined))?.info as
    | { Title?: unknown }
    | undefined;
  const sections: string[] = [];
  let chars = 0;
  for (let number = 1; number <= pdf.numPages && chars <= request.maxChars; number++) {
    const page = await pdf.getPage(number);
    const text = pageText((await page.getTextContent()).items as TextItem[]);
    page.cleanup();
    if (!text) continue;
    sections.push(`## Page ${number}\n\n${text}`);
    chars += text.length;
  }
  const title = typeof info?.Title === "string" ? info.Title.trim() : "";
  return { title, markdown: sections.join("\n\n") };
}
