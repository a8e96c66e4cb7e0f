/**
 * Documents into Markdown for memory: Markdown, plain text, HTML, PDF, DOCX
 * and CSV. This module names the format (from the bytes, the media type and
 * the name) and checks the limits; the parsers run in a document process
 * (documents_process.ts), one per document, started and killed by the tool
 * sandbox's machinery (src/sandbox/process.ts): an OS process of its
 * own whose parser runs in a Worker with no permissions at all, while its
 * main thread watches the process's memory and ends it when hob goes.
 * Importing this module loads no parser.
 *
 * What that contains: a parser tricked by a file can read, write, reach and
 * run nothing; one that loops is killed with its process at the timeout, on
 * abort, or when hob ends however it ends; one that fills its memory (heap
 * or buffers) ends only its process. hob's answers are not held up either
 * way, and its answer is checked before hob reads it.
 *
 * It knows nothing of memory files, front matter, fetching URLs or indexing:
 * the caller saves and labels what it returns.
 */

import { DOCUMENTS_COMMAND } from "../sandbox/launch.ts";
import type { ProcessSandbox, ProcessSandboxOptions } from "../sandbox/process.ts";
import { DocumentError, type DocumentProblem, SUPPORTED_FORMATS } from "./document_errors.ts";
import { decodeText, firstHeading, titleFromName } from "./document_text.ts";

export { DocumentError, type DocumentProblem } from "./document_errors.ts";

/** The formats hob reads. */
export type DocumentFormat = "markdown" | "text" | "html" | "pdf" | "docx" | "csv";

/**
 * Largest input read, in bytes. A text PDF of several hundred pages fits;
 * parsing holds several times a file's size in memory, and larger files are
 * mostly scans or archives with little text to gain.
 */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;
/**
 * Most Markdown characters kept from one document: about 1,500 chunks to
 * embed. Past it the text is cut at a line, with a note saying so.
 */
export const MAX_MARKDOWN_CHARS = 2_000_000;
/**
 * How long one conversion may run. A 25 MB text PDF converts in seconds here;
 * a parser still busy after this is more likely looping on a crafted file.
 */
export const CONVERSION_TIMEOUT_MS = 120_000;

/** A document to convert. */
export interface DocumentInput {
  bytes: Uint8Array;
  /** The file's name (or the URL's last path segment): its extension helps name the format. */
  name: string;
  /** The declared media type, e.g. an upload's or a `Content-Type` header, charset included. */
  mediaType?: string;
  /** Where the document came from: relative links in HTML resolve against it. */
  url?: string;
}

/** Options for {@linkcode convertDocument}. */
export interface ConvertDocumentOptions {
  /** Stops the conversion: its process is killed and the promise rejects. */
  signal?: AbortSignal;
  /** @default {CONVERSION_TIMEOUT_MS} */
  timeoutMs?: number;
  /** @default {MAX_DOCUMENT_BYTES} */
  maxBytes?: number;
  /** @default {MAX_MARKDOWN_CHARS} */
  maxChars?: number;
  /** The document process's entry module; tests swap it. @default {documents_entry.ts beside this file} */
  entry?: URL;
  /** @default {DOCUMENT_MEMORY_MB} */
  memoryMb?: number;
  /**
   * How the document process starts; tests choose `hob __documents`, what a
   * compiled hob does. @default {as tool processes start}
   */
  launch?: Pick<ProcessSandboxOptions, "launcher" | "hob">;
}

/** A converted document. */
export interface ConvertedDocument {
  format: DocumentFormat;
  /** From the document itself when it has one (HTML title, PDF metadata, first heading), else the name. */
  title: string;
  /**
   * The body as Markdown, without a `# title` line (the caller may add one).
   * PDF pages are `## Page N` sections, so a chunk's heading path names its page.
   */
  markdown: string;
  /** True when the Markdown was cut at {@linkcode ConvertDocumentOptions.maxChars}. */
  truncated: boolean;
}

/** What a document process is sent. */
export interface ConversionRequest {
  format: Exclude<DocumentFormat, "markdown" | "text">;
  bytes: Uint8Array;
  name: string;
  url?: string;
  /** The declared charset, for text formats. */
  charset?: string;
  /** Converters may stop producing past this many characters. */
  maxChars: number;
}

/** What a document process answers. */
export type ConversionReply =
  | {
    ok: true;
    title: string;
    /** Tidied (see {@linkcode tidyMarkdown}) and at most `maxChars` + 1 characters long. */
    markdown: string;
    /** True when the converter's Markdown went on past what was sent. */
    more?: boolean;
  }
  | { ok: false; problem: DocumentProblem; message: string };

const MEDIA_TYPES: Record<string, DocumentFormat> = {
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/csv": "csv",
  "text/tab-separated-values": "csv",
  "application/csv": "csv",
  "application/pdf": "pdf",
  "application/x-pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "text/plain": "text",
};

const EXTENSIONS: Record<string, DocumentFormat> = {
  md: "markdown",
  markdown: "markdown",
  mdown: "markdown",
  mkd: "markdown",
  txt: "text",
  text: "text",
  log: "text",
  html: "html",
  htm: "html",
  xhtml: "html",
  csv: "csv",
  tsv: "csv",
  pdf: "pdf",
  docx: "docx",
};

/** Binary formats recognised by their first bytes, to name them when refusing. */
const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], what: "a JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: "a GIF image" },
  { bytes: [0x52, 0x49, 0x46, 0x46], what: "a RIFF file (WebP, WAV or AVI)" },
  { bytes: [0x1f, 0x8b], what: "a gzip archive" },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: "an old-style or password-protected Office document" },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: "a program (ELF)" },
  { bytes: [0x49, 0x44, 0x33], what: "an MP3 file" },
  { bytes: [0x4f, 0x67, 0x67, 0x53], what: "an Ogg file" },
];

/** What a ZIP archive that is not a DOCX probably is, by the names inside. */
const ZIP_KINDS: { marker: string; what: string }[] = [
  { marker: "xl/workbook", what: "an Excel workbook (.xlsx)" },
  { marker: "ppt/presentation", what: "a PowerPoint file (.pptx)" },
  { marker: "application/vnd.oasis.opendocument", what: "an OpenDocument file" },
  { marker: "application/epub+zip", what: "an EPUB book" },
];

function startsWith(bytes: Uint8Array, prefix: number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte);
}

/**
 * The bytes' own format when they carry a signature; `what` names a format
 * hob does not read. `textual` says the labels name a text format, in which
 * a `%PDF-` past the first byte is only words.
 */
function sniff(bytes: Uint8Array, textual: boolean): { format?: DocumentFormat; what?: string } {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).replace(
    /^\xef\xbb\xbf/,
    "",
  );
  // The PDF specification lets readers find the header anywhere in the first 1024 bytes.
  const pdfAt = head.indexOf("%PDF-");
  if (pdfAt === 0 || (pdfAt > 0 && !textual)) return { format: "pdf" };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    // Entry names are stored in plain text, in each local header and in the central directory.
    const names = new TextDecoder("latin1").decode(bytes);
    if (names.includes("word/document.xml")) return { format: "docx" };
    return { what: ZIP_KINDS.find((kind) => names.includes(kind.marker))?.what ?? "a ZIP archive" };
  }
  const signature = SIGNATURES.find((s) => startsWith(bytes, s.bytes));
  if (signature) return { what: signature.what };
  const text = head.trimStart().slice(0, 200).toLowerCase();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(!doctype html|html[\s>])/.test(text)) {
    return { format: "html" };
  }
  return {};
}

function extensionOf(name: string): string {
  const match = /\.([a-z0-9]+)$/i.exec(name.split(/[?#]/)[0]);
  return match ? match[1].toLowerCase() : "";
}

function mediaTypeOf(mediaType: string | undefined): { essence: string; charset?: string } {
  const [essence = "", ...params] = (mediaType ?? "").split(";").map((part) => part.trim());
  const charset = params.map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1]).find(Boolean);
  return { essence: essence.toLowerCase(), charset };
}

function unsupported(name: string, what: string): DocumentError {
  return new DocumentError(
    "unsupported",
    `hob cannot read ${name}: it is ${what}. hob reads ${SUPPORTED_FORMATS} files.`,
  );
}

/**
 * The format of `input`, trusting in turn:
 * 1. a signature in the bytes (`%PDF-`, a ZIP holding `word/document.xml`,
 *    `<!doctype html`): content outranks any label, and a known binary format
 *    (PNG, ZIP, …) is refused by name (a `%PDF-` after some bytes counts
 *    only when no label names a text format);
 * 2. a specific media type (HTML, CSV, Markdown, PDF, DOCX);
 * 3. the name's extension, which outranks a generic media type (servers send
 *    `text/plain` for Markdown and `application/octet-stream` for anything);
 * 4. `text/plain`; else plain text, which decoding refuses if it is binary.
 *
 * A label naming PDF or DOCX on bytes that are not one is a damaged file.
 *
 * @example
 * ```ts
 * detectFormat({ bytes: new TextEncoder().encode("a,b\n1,2\n"), name: "data.csv" }); // "csv"
 * ```
 */
export function detectFormat(input: DocumentInput): DocumentFormat {
  const { essence } = mediaTypeOf(input.mediaType);
  const extension = extensionOf(input.name);
  const declared = (essence !== "text/plain" ? MEDIA_TYPES[essence] : undefined) ??
    EXTENSIONS[extension] ?? MEDIA_TYPES[essence];
  const sniffed = sniff(input.bytes, declared !== undefined && declared !== "pdf");
  if (sniffed.format) return sniffed.format;
  if (sniffed.what) throw unsupported(input.name, sniffed.what);
  if (declared === "pdf" || declared === "docx") {
    throw new DocumentError(
      "corrupt",
      `${input.name} is not a readable ${declared.toUpperCase()} file: it does not start as one ` +
        "does, so it is damaged or not what its name says.",
    );
  }
  if (declared) return declared;
  // Other labels fall to text (JSON, YAML, source code…), which decoding refuses if binary.
  if (/^(image|audio|video|font|model)\//.test(essence)) {
    throw unsupported(input.name, `of type ${essence}`);
  }
  return "text";
}

/**
 * Converts a document to Markdown. Markdown and plain text are only decoded,
 * here; every other format is parsed in a process of its own with no
 * permissions and a memory cap, killed when it answers, after `timeoutMs`,
 * or when `signal` aborts (see the module's note).
 * Rejects with a {@linkcode DocumentError} whose message the owner can act on.
 *
 * @example
 * ```ts
 * const bytes = await Deno.readFile("report.pdf");
 * const { title, markdown } = await convertDocument({ bytes, name: "report.pdf" });
 * ```
 */
export async function convertDocument(
  input: DocumentInput,
  options: ConvertDocumentOptions = {},
): Promise<ConvertedDocument> {
  const {
    signal,
    timeoutMs = CONVERSION_TIMEOUT_MS,
    maxBytes = MAX_DOCUMENT_BYTES,
    maxChars = MAX_MARKDOWN_CHARS,
    entry = new URL("./documents_entry.ts", import.meta.url),
    memoryMb = DOCUMENT_MEMORY_MB,
    launch = {},
  } = options;
  if (signal?.aborted) throw aborted(input.name, signal);
  if (input.bytes.length > maxBytes) {
    throw new DocumentError(
      "too_large",
      `${input.name} is ${size(input.bytes.length)}; hob reads documents up to ` +
        `${size(maxBytes)}. Split it, or save the part you need.`,
    );
  }
  const format = detectFormat(input);
  const { title, markdown, more = false } = format === "markdown" || format === "text"
    ? convertText(input, format)
    : await runConverter(entry, {
      format,
      bytes: input.bytes,
      name: input.name,
      url: input.url,
      charset: mediaTypeOf(input.mediaType).charset,
      maxChars,
    }, { signal, timeoutMs, memoryMb, launch });
  // Converters' output loses trailing spaces and runs of blank lines; given Markdown keeps its own.
  const tidy = format === "markdown" || format === "text"
    ? markdown.trim()
    : tidyMarkdown(markdown);
  if (!tidy) throw empty(input.name, format);
  return {
    format,
    title: title.trim() || titleFromName(input.name),
    ...cut(tidy, maxChars, more),
  };
}

function size(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function aborted(name: string, signal: AbortSignal): DocumentError {
  return new DocumentError("aborted", `Reading ${name} was stopped.`, { cause: signal.reason });
}

function empty(name: string, format: DocumentFormat): DocumentError {
  return new DocumentError(
    "empty",
    format === "pdf"
      ? `${name} has no text to read: its pages are probably scanned images, and hob does not ` +
        "read text from images. Run it through OCR first, or save its text."
      : `${name} has no readable text.`,
  );
}

/** Markdown passes through (its title from front matter or its first heading); text only decoded. */
function convertText(input: DocumentInput, format: "markdown" | "text"): Converted {
  const markdown = decodeText(input.bytes, input.name, mediaTypeOf(input.mediaType).charset);
  if (format === "text") return { title: titleFromName(input.name), markdown };
  const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(markdown)?.[1];
  const fromFrontMatter = frontMatter && /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter)?.[1];
  return {
    title: fromFrontMatter || firstHeading(markdown) || titleFromName(input.name),
    markdown,
  };
}

/** `markdown` cut at the last line before `maxChars`, with a note saying so. */
function cut(
  markdown: string,
  maxChars: number,
  more: boolean,
): { markdown: string; truncated: boolean } {
  if (markdown.length <= maxChars && !more) return { markdown: `${markdown}\n`, truncated: false };
  const line = markdown.lastIndexOf("\n", maxChars);
  const kept = markdown.slice(0, line > maxChars / 2 ? line : maxChars).trimEnd();
  return {
    markdown: `${kept}\n\n> hob kept the first ${kept.length.toLocaleString("en")} characters ` +
      "of this document; the rest was cut.\n",
    truncated: true,
  };
}

/**
 * A converter's Markdown without trailing spaces and runs of blank lines. A
 * document process sends it tidied and cut to `maxChars` + 1 characters, so
 * its answer stays small however much a file expands into.
 *
 * @example
 * ```ts
 * tidyMarkdown("a  \n\n\n\nb\n"); // "a\n\nb"
 * ```
 */
export function tidyMarkdown(markdown: string): string {
  return markdown.replace(/[ \t]+$/gm, "").replace(/\n{3,}/g, "\n\n").trim();
}

/** The name of the one tool a document process serves (documents_process.ts). */
export const CONVERT_TOOL = "convert_document";

/** A {@linkcode ConversionRequest} as it crosses to a document process: JSON, its bytes in base64. */
export type WireRequest = Omit<ConversionRequest, "bytes"> & { bytes: string };

/**
 * A request as a document process reads it back.
 *
 * @example
 * ```ts
 * fromWire({ format: "csv", bytes: "YSxi", name: "a.csv", maxChars: 10 }).bytes; // "a,b" as bytes
 * ```
 */
export function fromWire(wire: WireRequest): ConversionRequest {
  return { ...wire, bytes: Uint8Array.fromBase64(wire.bytes) };
}

/**
 * Memory a document process may grow by, in MB, heap and buffers. Parsing
 * holds several times a file's size; past this,
 * the file is built to exhaust a reader more likely than it is a document.
 */
export const DOCUMENT_MEMORY_MB = 768;

/** Document processes at once: more conversions wait their turn, so a batch cannot fill the machine. */
const MAX_CONVERSIONS = 2;

/** The document processes of each entry (tests bring their own), made on first use. */
const processes = new Map<string, ProcessSandbox>();

/**
 * Runs one conversion in a fresh process with no permissions (no reading,
 * writing, network, environment, subprocesses, FFI or system information)
 * and a memory cap, killed when it answers, fails, times out or is aborted.
 */
async function runConverter(
  entry: URL,
  request: ConversionRequest,
  options: Required<Pick<ConvertDocumentOptions, "timeoutMs" | "memoryMb" | "launch">> & {
    signal?: AbortSignal;
  },
): Promise<Converted> {
  const { signal, timeoutMs } = options;
  const { name, format } = request;
  const { sandbox, NO_PERMISSIONS } = await documentSandbox(entry, options);
  const outcome = await sandbox.exchange(NO_PERMISSIONS, {
    type: "call",
    tool: { kind: "builtin", name: CONVERT_TOOL },
    args: { ...request, bytes: request.bytes.toBase64() } satisfies WireRequest,
    context: {
      conversation_id: "",
      now: new Date().toISOString(),
      workspace: "",
      roots: [],
      home: "",
      settings: {},
      max_output_chars: Number.MAX_SAFE_INTEGER,
    },
  }, { signal, timeoutMs });
  if (outcome.ok) {
    const { message } = outcome;
    if (message.type === "result" && message.ok) return checkedReply(message.content, request);
    return failed(request, message.type === "result" ? message.error : "no answer");
  }
  switch (outcome.reason) {
    case "aborted":
      throw aborted(name, signal ?? AbortSignal.abort());
    case "timeout":
      throw new DocumentError(
        "timeout",
        `hob stopped reading ${name} after ${Math.round(timeoutMs / 1000)} s: its ` +
          `${format.toUpperCase()} took too long to parse, so the file may be damaged ` +
          "or built to hang a reader.",
      );
    default:
      return failed(request, outcome.error);
  }
}

/** What a converter gives back. */
interface Converted {
  title: string;
  markdown: string;
  /** True when its Markdown went on past what was sent. */
  more?: boolean;
}

/** The document processes for `entry`, made on first use. */
async function documentSandbox(
  entry: URL,
  options: Required<Pick<ConvertDocumentOptions, "memoryMb" | "launch">>,
) {
  // The process machinery loads with the first document that needs a parser.
  const [{ ProcessSandbox }, { NO_PERMISSIONS }] = await Promise.all([
    import("../sandbox/process.ts"),
    import("../sandbox/permissions.ts"),
  ]);
  const key = JSON.stringify([entry.href, options.memoryMb, options.launch]);
  let sandbox = processes.get(key);
  if (!sandbox) {
    sandbox = new ProcessSandbox({
      ...options.launch,
      entry,
      command: DOCUMENTS_COMMAND,
      heapMb: options.memoryMb,
      maxWarm: 0,
      maxRunning: MAX_CONVERSIONS,
    });
    processes.set(key, sandbox);
  }
  return { sandbox, NO_PERMISSIONS };
}

/** The problems a document process may report; the rest are hob's own to say. */
const PROCESS_PROBLEMS: ReadonlySet<string> = new Set<DocumentProblem>([
  "unsupported",
  "too_large",
  "corrupt",
  "encrypted",
  "empty",
]);

/** Longest title, and longest reason, taken from a document process. */
const MAX_TITLE_CHARS = 500;
const MAX_REASON_CHARS = 2_000;

/**
 * A document process's answer, checked: the process parsed a file someone
 * else may have built, so its answer is read as data of the expected shape
 * and size, never trusted to have it.
 */
function checkedReply(content: string, request: ConversionRequest): Converted {
  let reply: Record<string, unknown> | null;
  try {
    reply = JSON.parse(content);
  } catch {
    return failed(request, "its answer was not JSON");
  }
  if (reply?.ok === true && typeof reply.title === "string" && typeof reply.markdown === "string") {
    const more = reply.more === true || reply.markdown.length > request.maxChars + 1;
    return {
      title: reply.title.slice(0, MAX_TITLE_CHARS),
      markdown: reply.markdown.slice(0, request.maxChars + 1),
      more,
    };
  }
  if (reply?.ok === false && typeof reply.message === "string") {
    const problem = PROCESS_PROBLEMS.has(String(reply.problem))
      ? reply.problem as DocumentProblem
      : "corrupt";
    throw new DocumentError(problem, reply.message.slice(0, MAX_REASON_CHARS));
  }
  return failed(request, "its answer was not one hob understands");
}

/** The reader's end, in words: it ran out of memory, could not start, or failed. */
function failed(request: ConversionRequest, why: string): never {
  const { name } = request;
  const format = request.format.toUpperCase();
  if (/out of memory|SIGKILL/.test(why)) {
    throw new DocumentError(
      "too_large",
      `hob stopped reading ${name}: its ${format} needed more memory than hob gives a reader ` +
        `(${why}), so the file may be built to exhaust one.`,
    );
  }
  if (/^did not start/.test(why)) {
    throw new DocumentError(
      "timeout",
      `hob could not start a reader for ${name} in time (${why}); the machine may be busy. ` +
        "Try again.",
    );
  }
  throw new DocumentError(
    "corrupt",
    `hob could not read ${name}: its ${format} reader failed (${why}).`,
  );
}
