/**
 * The `fetch_url` tool: a web page as readable text (no scripts, styles,
 * navigation, headers or footers), JSON as is, anything else briefly — from
 * public addresses only unless the user allows more. Each hop's host is
 * resolved once, checked, and connected to at exactly the checked address
 * (no DNS rebinding). What it returns is marked as untrusted.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { markUntrusted } from "../core/untrusted.ts";
import type { AddressPolicy } from "../tools/web/address.ts";
import { getChecked } from "../tools/web/get.ts";

/** Characters kept for HTML, JSON and other text. */
const HTML_CAP = 15_000;
const JSON_CAP = 15_000;
const OTHER_CAP = 5_000;
/** Bytes read from a response at most. */
const MAX_BODY_BYTES = 5_000_000;
/** A page's links listed after its text: enough to go on reading, not a site map. */
const MAX_LINKS = 40;
/** Characters the list of links takes at most. */
const LINKS_CHARS = 4_000;
/** Characters of a link's text shown beside it. */
const LINK_TEXT_CHARS = 60;

export default defineTool({
  name: "fetch_url",
  description:
    "Fetch a web page or file by URL. HTML comes back as readable text (up to 15,000 characters), JSON as is, other text shortened. Private and local addresses are refused unless the user allows them.",
  category: "web",
  side_effect: "none",
  untrusted_output: true,
  // The page's links may be followed in a tainted turn; a URL the model composed asks.
  output_links: true,
  reaches: ({ url }) => [url],
  permissions: { net: ["*"] },
  timeout_ms: 45_000,
  max_output_chars: HTML_CAP + LINKS_CHARS + 1_000,
  parameters: z.object({
    url: z.url({ protocol: /^https?$/ }).describe("http or https URL"),
  }),
  async run({ url }, context) {
    const policy = {
      allow_private: false,
      allow_hosts: [],
      ...(context.settings.web as Partial<AddressPolicy> | undefined),
    };
    const { url: target, status, contentType: type, bytes } = await getChecked(
      new URL(url),
      policy,
      {
        signal: context.signal,
        accept: "text/html,application/json;q=0.9,*/*;q=0.5",
        maxBytes: MAX_BODY_BYTES,
      },
    );
    const header = `URL: ${target.href}\nStatus: ${status}\nContent-Type: ${type || "unknown"}`;
    let body: string;
    if (type.includes("html")) {
      const html = new TextDecoder().decode(bytes);
      const links: PageLink[] = [];
      body = cap(await htmlToReadable(html, links), HTML_CAP) + linkList(links, target);
    } else if (type.includes("json")) {
      body = cap(new TextDecoder().decode(bytes), JSON_CAP);
    } else if (type.startsWith("text/") || type.includes("xml") || type === "") {
      body = cap(new TextDecoder().decode(bytes), OTHER_CAP);
    } else {
      body = `(binary content, ${bytes.length} bytes, not shown)`;
    }
    return markUntrusted(target.href, `${header}\n\n${body}`);
  },
});

/** HTML as readable text: no scripts, styles, navigation, headers, footers or images. */
export async function htmlToReadable(html: string, links?: PageLink[]): Promise<string> {
  const { convert } = await import("html-to-text");
  const skip = [
    "script",
    "style",
    "noscript",
    "nav",
    "header",
    "footer",
    "svg",
    "iframe",
    "form",
    "img",
  ];
  return convert(html, {
    wordwrap: false,
    // The links are gathered in the same pass as the text: no second parse of the page.
    formatters: { anchorText: anchorText(links ?? []) },
    selectors: [
      ...skip.map((selector) => ({ selector, format: "skip" })),
      { selector: "a", format: "anchorText" },
    ],
  }).replace(/\n{3,}/g, "\n\n").trim();
}

/** A link of a page as its text showed it: where it points (as written) and its words. */
export interface PageLink {
  href: string;
  text: string;
}

/** html-to-text's formatter for `<a>`: its words in the text, as they are; its link into `links`. */
function anchorText(links: PageLink[]) {
  return (
    elem: { attribs?: Record<string, string>; children: unknown[] },
    walk: (nodes: unknown[], builder: unknown) => void,
    builder: {
      pushWordTransform(transform: (word: string) => string): void;
      popWordTransform(): void;
    },
  ) => {
    const words: string[] = [];
    builder.pushWordTransform((word) => {
      if (word) words.push(word);
      return word;
    });
    walk(elem.children, builder);
    builder.popWordTransform();
    const href = elem.attribs?.href;
    if (href) links.push({ href, text: words.join(" ") });
  };
}

/**
 * The page's links, absolute, after its text: the model sees where it may go
 * next, and a tainted turn may follow them unasked (src/tools/call_reach.ts).
 */
function linkList(links: PageLink[], page: URL): string {
  const seen = new Set([page.href.replace(/#.*$/, "")]);
  const lines: string[] = [];
  let size = 0;
  for (const link of links) {
    let url: URL;
    try {
      url = new URL(link.href, page);
    } catch {
      continue;
    }
    url.hash = "";
    if ((url.protocol !== "http:" && url.protocol !== "https:") || seen.has(url.href)) continue;
    seen.add(url.href);
    const text = link.text.replace(/\s+/g, " ").trim().slice(0, LINK_TEXT_CHARS);
    const line = `- ${text ? `${text}: ` : ""}${url.href}`;
    if (lines.length >= MAX_LINKS || size + line.length > LINKS_CHARS) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.length ? `\n\nLinks:\n${lines.join("\n")}` : "";
}

function cap(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}\n[… cut at ${limit} of ${text.length} characters]`;
}
