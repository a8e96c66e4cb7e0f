/**
 * Sources: documents and pages added to memory, each a Markdown file under
 * memory/sources/ with front matter that says where it came from, when, and
 * the hash of what was read. The body — title included — is text the owner
 * did not type and hob did not write, so it is stored inside an untrusted
 * label: its search hits are marked, and a turn that reads them is tainted.
 * Knows the file's shape, not how the bytes were fetched or converted.
 */

import { createHash } from "node:crypto";
import { untrusted } from "../core/untrusted.ts";
import type { DocumentFormat } from "./documents.ts";

/** Where sources live, relative to the memory directory. */
export const SOURCES_DIR = "sources";
/** Longest file name a source gets, before `.md`. */
const SLUG_CHARS = 60;

/** What a source file's front matter records. */
export interface SourceMeta {
  /** The URL, or the absolute path of the file, it was read from. */
  source: string;
  format: DocumentFormat;
  /** When it was read, ISO 8601. */
  fetched_at: string;
  /** SHA-256 of the bytes read, `sha256:` first: a refresh that reads the same is no change. */
  content_hash: string;
}

/** SHA-256 of bytes as the front matter records it. */
export function bytesHash(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * A source's file: front matter, then the title and body inside one
 * untrusted label.
 */
export async function sourceFile(
  meta: SourceMeta,
  title: string,
  markdown: string,
): Promise<string> {
  // The YAML library loads with the first source, not at start.
  const { stringify } = await import("yaml");
  const front = stringify(meta, { lineWidth: 0 }).trimEnd();
  const text = markdown.trim();
  // A Markdown document that opens with its own title keeps it; others get one.
  const body = /^# /.test(text)
    ? text
    : `# ${title.replace(/\s+/g, " ").trim() || "Untitled"}\n\n${text}`;
  return `---\n${front}\n---\n\n${untrusted(meta.source, body)}\n`;
}

/** The front matter of a source file, or null when it has none hob wrote. */
export async function readMeta(text: string): Promise<SourceMeta | null> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) return null;
  const { parse } = await import("yaml");
  try {
    const meta = parse(match[1]) as Partial<SourceMeta> | null;
    if (typeof meta?.source !== "string" || typeof meta.content_hash !== "string") return null;
    return meta as SourceMeta;
  } catch {
    return null;
  }
}

/**
 * A file name for a source, from its URL (host and path) or file name:
 * lower-case words joined by dashes, `.md` at the end.
 *
 * @example
 * ```ts
 * sourceName("https://example.com/guides/Boiler%20Manual.pdf"); // "example-com-guides-boiler-manual.md"
 * ```
 */
export function sourceName(source: string): string {
  let base: string;
  if (/^https?:\/\//i.test(source)) {
    const url = new URL(source);
    base = `${url.hostname}${decodeURIComponent(url.pathname)}`;
  } else {
    base = source.split(/[\\/]/).pop() ?? source;
  }
  base = base.replace(/\.(md|markdown|txt|html?|pdf|docx|csv|tsv)$/i, "");
  const slug = base.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, SLUG_CHARS)
    .replace(/-+$/, "");
  return `${slug || "source"}.md`;
}
