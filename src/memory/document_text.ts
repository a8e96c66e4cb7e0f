/**
 * Bytes into text for documents: byte-order marks, a declared charset, UTF-8,
 * and a legacy 8-bit fallback for text that is not UTF-8; binary data is
 * refused. Also the title a document gets from its name. Loads no parser.
 */

import { DocumentError, SUPPORTED_FORMATS } from "./document_errors.ts";

/** Share of control characters (besides whitespace) past which bytes are binary, not text. */
const MAX_CONTROL_SHARE = 0.02;

function isControl(byte: number): boolean {
  return byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c &&
    byte !== 0x1b;
}

/** True when `bytes` hold a NUL or more control characters than text has. */
function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  let controls = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (isControl(byte)) controls++;
  }
  return controls > sample.length * MAX_CONTROL_SHARE;
}

/** A decoder for `label`, or none when the platform does not know it. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

/**
 * The text in `bytes`, with `\n` line ends and no byte-order mark. A BOM
 * decides the encoding, then a declared `charset`, then UTF-8; bytes that are
 * not UTF-8 but read as text are taken as Windows-1252 (a superset of
 * Latin-1), and binary bytes are refused with a {@linkcode DocumentError}.
 *
 * @example
 * ```ts
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0d, 0x0a]), "a.txt"); // "hi\n"
 * ```
 */
export function decodeText(bytes: Uint8Array, name: string, charset?: string): string {
  let text: string | undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder("utf-16le").decode(bytes);
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder("utf-16be").decode(bytes);
  else if (looksBinary(bytes)) {
    throw new DocumentError(
      "unsupported",
      `hob cannot read ${name}: it is binary data, not text. hob reads ${SUPPORTED_FORMATS} files.`,
    );
  } else {
    const declared = decoderFor(charset);
    if (declared && declared.encoding !== "utf-8") text = declared.decode(bytes);
    else {
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        text = new TextDecoder("windows-1252").decode(bytes);
      }
    }
  }
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

/**
 * A title from a file name or URL segment: without its extension, separators as spaces.
 *
 * @example
 * ```ts
 * titleFromName("tide-tables_2026.csv"); // "tide tables 2026"
 * ```
 */
export function titleFromName(name: string): string {
  const base = name.split(/[?#]/)[0].split(/[\\/]/).filter(Boolean).at(-1) ?? name;
  const stem = base.replace(/\.[a-z0-9]{1,8}$/i, "");
  let decoded = stem;
  try {
    decoded = decodeURIComponent(stem);
  } catch {
    // A name with a stray % is kept as it is.
  }
  return decoded.replace(/[-_]+/g, " ").replace(/\s+/g, " ").trim() || name;
}

/** The first ATX heading of Markdown (`# Title`), outside code fences. */
export function firstHeading(markdown: string): string | undefined {
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) return heading[1];
  }
  return undefined;
}
