/**
 * Why hob cannot read a document, shared by the converters, their process and
 * the module that runs them. Knows nothing of any format.
 */

/** The formats hob reads, as its messages name them. */
export const SUPPORTED_FORMATS = "Markdown, plain text, HTML, PDF, DOCX and CSV";

/** What went wrong with a document, for callers that act on the kind. */
export type DocumentProblem =
  | "unsupported"
  | "too_large"
  | "corrupt"
  | "encrypted"
  | "empty"
  | "timeout"
  | "aborted";

/**
 * A document hob cannot read; the message says why in words its owner can act on.
 *
 * @example
 * ```ts
 * throw new DocumentError("empty", "scan.pdf has no text to read");
 * ```
 */
export class DocumentError extends Error {
  override name = "DocumentError";
  readonly problem: DocumentProblem;
  constructor(problem: DocumentProblem, message: string, options?: ErrorOptions) {
    super(message, options);
    this.problem = problem;
  }
}
