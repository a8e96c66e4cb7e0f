/**
 * Text as a Word document (the `docx` library, loaded only when used): for
 * `email_file`'s `.txt` attachments and `write_file`'s `format: "docx"`.
 */

/**
 * A Word document with one paragraph per line of `text`.
 *
 * @example
 * ```ts
 * await Deno.writeFile("note.docx", await textToDocx("Title\n\nBody"));
 * ```
 */
export async function textToDocx(text: string): Promise<Uint8Array> {
  const { Document, Packer, Paragraph } = await import("docx");
  const document = new Document({
    sections: [{ children: text.split(/\r?\n/).map((line) => new Paragraph(line)) }],
  });
  return new Uint8Array(await Packer.toArrayBuffer(document));
}
