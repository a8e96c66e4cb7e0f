/**
 * HTML into Markdown: the readable part of a page (Mozilla's Readability, the
 * Firefox Reader View, over linkedom's DOM), or the whole body without its
 * scripts and navigation when the page has no article to find; then Turndown
 * with GitHub tables. DOCX goes through here too, as mammoth's HTML. Runs
 * only in a document process; knows nothing of memory.
 */

import { gfm } from "@joplin/turndown-plugin-gfm";
import { isProbablyReaderable, Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import type { ConversionRequest } from "./documents.ts";
import { decodeText, titleFromName } from "./document_text.ts";

/** The little of the DOM this module uses (linkedom's, typed here as web-search.ts does). */
interface HtmlElement {
  localName: string;
  textContent: string | null;
  querySelector(selector: string): HtmlElement | null;
  querySelectorAll(selector: string): Iterable<HtmlElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  closest(selector: string): HtmlElement | null;
  prepend(node: HtmlElement): void;
  append(text: string): void;
  remove(): void;
}

interface HtmlDocument extends HtmlElement {
  title: string;
  head: HtmlElement | null;
  body: HtmlElement | null;
  createElement(name: string): HtmlElement;
}

/** Elements that are never the text of a page, dropped when the whole body is taken. */
const BOILERPLATE =
  "script, style, noscript, template, svg, canvas, iframe, nav, header, footer, aside, form, " +
  "button, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]";

/** The charset a page declares in its first bytes (`<meta charset>`), when no header said. */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2048));
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1];
}

function parse(html: string, url: string | undefined): HtmlDocument {
  // A fragment (mammoth's output, a snippet) gets a document around it, or linkedom drops it.
  const whole = /<!doctype|<(html|head|body)[\s>]/i.test(html)
    ? html
    : `<!doctype html><html><body>${html}</body></html>`;
  const { document } = parseHTML(whole) as unknown as { document: HtmlDocument };
  if (url && document.head) {
    // Readability makes links absolute against the document's base.
    const base = document.querySelector("base[href]");
    try {
      const href = new URL(base?.getAttribute("href") ?? "", url).href;
      if (base) base.setAttribute("href", href);
      else {
        const element = document.createElement("base");
        element.setAttribute("href", href);
        document.head.prepend(element);
      }
    } catch {
      // An unusable URL leaves links as the page wrote them.
    }
  }
  addTableRows();
  return document;
}

/**
 * The GitHub-tables plugin reads `table.rows`, which linkedom does not
 * provide (its tables are plain elements): this getter gives a table its own
 * rows, not those of tables nested in it, as browsers do.
 */
function addTableRows(): void {
  const { document } = parseHTML(
    "<!doctype html><html><body><table></table></body></html>",
  ) as unknown as { document: HtmlDocument };
  const prototype = Object.getPrototypeOf(document.querySelector("table"));
  if ("rows" in prototype) return;
  Object.defineProperty(prototype, "rows", {
    configurable: true,
    get(this: HtmlElement) {
      if (this.localName !== "table") return undefined;
      return [...this.querySelectorAll("tr")].filter((row) => row.closest("table") === this);
    },
  });
}

let turndown: TurndownService | undefined;

/** Turndown as hob wants its Markdown: ATX headings, fenced code, `-` lists, GitHub tables. */
function markdownWriter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
    hr: "---",
    // Memory holds Markdown only: anything a plugin asks to keep as HTML is its content.
    keepReplacement: (content: string, node: { isBlock?: boolean }) =>
      node.isBlock ? `\n\n${content}\n\n` : content,
  });
  turndown.use(gfm);
  turndown.remove(["script", "style", "noscript", "template", "iframe", "object", "embed"]);
  // Memory is text: an inline image's data is dropped, its description kept.
  turndown.addRule("images", {
    filter: "img",
    replacement: (_content: string, node: HtmlElement) => {
      const alt = (node.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
      const src = node.getAttribute("src") ?? "";
      return /^https?:\/\//i.test(src) && alt ? `![${alt}](${src})` : alt;
    },
  });
  // A link that runs script or carries data is only its text.
  turndown.addRule("unsafeLinks", {
    filter: (node: HtmlElement) =>
      node.localName === "a" &&
      /^\s*(javascript|data|vbscript):/i.test(node.getAttribute("href") ?? ""),
    replacement: (content: string) => content,
  });
  return turndown;
}

/**
 * An HTML element, or an HTML string, as Markdown.
 *
 * @example
 * ```ts
 * htmlToMarkdown("<h2>Tides</h2><ul><li>High water</li></ul>"); // "## Tides\n\n-   High water"
 * ```
 */
export function htmlToMarkdown(html: string | HtmlElement): string {
  const root = typeof html === "string" ? parse(html, undefined).body : html;
  if (!root) return "";
  flattenCells(root);
  return markdownWriter().turndown(root as never);
}

/**
 * A table cell holding blocks (lists, headings, code, a table) becomes its
 * text: the GitHub-tables plugin writes such a table as raw HTML, and memory
 * holds Markdown only.
 */
const BLOCKS = "li, p, div, pre, blockquote, tr, td, th, h1, h2, h3, h4, h5, h6";

function flattenCells(root: HtmlElement): void {
  for (const cell of [...root.querySelectorAll("td, th")]) {
    if (!cell.querySelector("ul, ol, pre, blockquote, hr, table, h1, h2, h3, h4, h5, h6")) continue;
    // Blocks' texts are kept apart: "Buoy; Bell", not "BuoyBell".
    for (const block of [...cell.querySelectorAll(BLOCKS)]) block.append("; ");
    cell.textContent = (cell.textContent ?? "").replace(/\s+/g, " ")
      .replace(/\s*;(\s*;)+/g, ";").replace(/[\s;]+$/, "").trim();
  }
}

/** The page's title: Readability's, else `<title>`, else its first heading. */
function pageTitle(document: HtmlDocument, readable: string | null | undefined): string {
  const candidates = [
    readable,
    document.title,
    document.querySelector("h1")?.textContent,
    document.querySelector("h2")?.textContent,
  ];
  return candidates.map((c) => (c ?? "").replace(/\s+/g, " ").trim()).find(Boolean) ?? "";
}

/**
 * An HTML document's readable text as Markdown, and its title.
 *
 * @example
 * ```ts
 * const { title, markdown } = convertHtml({ format: "html", bytes, name: "page.html", maxChars });
 * ```
 */
export function convertHtml(request: ConversionRequest): { title: string; markdown: string } {
  const html = decodeText(
    request.bytes,
    request.name,
    request.charset ?? metaCharset(request.bytes),
  );
  const document = parse(html, request.url);
  const title = document.title;
  // Readability always finds something; on a page without an article (a list
  // of links, a short note) that is a guess, so such a page is kept whole.
  if (isProbablyReaderable(document as never)) {
    const article = new Readability(document as never, { serializer: (node) => node }).parse();
    const content = article?.content as HtmlElement | null | undefined;
    if (content && (content.textContent ?? "").trim()) {
      return {
        title: pageTitle(document, article?.title || title),
        markdown: htmlToMarkdown(content),
      };
    }
  }
  // Readability rewrites the document it reads: the whole page is read afresh.
  const whole = parse(html, request.url);
  for (const element of [...whole.querySelectorAll(BOILERPLATE)]) element.remove();
  return {
    title: pageTitle(whole, title) || titleFromName(request.name),
    markdown: whole.body ? htmlToMarkdown(whole.body) : "",
  };
}
