/**
 * DOCX into Markdown: mammoth turns the Word document into plain semantic
 * HTML (headings, lists, tables, links; no styling), which goes on to
 * Markdown the way a web page does. Runs only in a document process; knows
 * nothing of memory.
 */

import mammothModule from "mammoth";
import mammothPromises from "mammoth/lib/promises.js";
import { DocumentError } from "./document_errors.ts";
import { htmlToMarkdown } from "./document_html.ts";
import type { ConversionRequest } from "./documents.ts";

/** The part of mammoth used here. */
interface Mammoth {
  convertToHtml(
    input: { buffer: Uint8Array },
    options: { convertImage: unknown; ignoreEmptyParagraphs: boolean },
  ): Promise<{ value: string }>;
  images: { imgElement(convert: (image: unknown) => Promise<Record<string, string>>): unknown };
}

const mammoth = mammothModule as unknown as Mammoth;

// mammoth wraps each promise it returns in a subclass built by assigning
// `__proto__`, which Deno removes from Object.prototype, so the wrapper has no
// `resolve`. Its promises are returned as they are: only the wrapper's
// deprecated `.done()` is lost.
(mammothPromises as { toExternalPromise(promise: Promise<unknown>): Promise<unknown> })
  .toExternalPromise = (promise) => promise;

/**
 * A DOCX file as Markdown, and its title from its first heading.
 *
 * @example
 * ```ts
 * const { markdown } = await convertDocx({ format: "docx", bytes, name: "plan.docx", maxChars });
 * ```
 */
export async function convertDocx(
  request: ConversionRequest,
): Promise<{ title: string; markdown: string }> {
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml({ buffer: request.bytes }, {
      // Memory is text: images become their description, not megabytes of base64.
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" })),
      ignoreEmptyParagraphs: true,
    }));
  } catch (error) {
    throw new DocumentError(
      "corrupt",
      `${request.name} is not a readable DOCX file (${(error as Error).message}). ` +
        "It may be damaged, or an older Word format: save it again as .docx.",
      { cause: error },
    );
  }
  const markdown = htmlToMarkdown(html);
  const title = /^#{1,6} (.+)$/m.exec(markdown)?.[1]?.trim() ?? "";
  return { title, markdown };
}
