/**
 * The `fetch_url` tool: a web page as readable text (no scripts, styles,
 * navigation, headers or footers), JSON as is, anything else briefly — from
 * public addresses only unless the user allows more. Each hop's host is
 * resolved once, checked, and connected to at exactly the checked address
 * (no DNS rebinding). What it returns is marked as untrusted.
 */

import { z } from "zod";
import { defineTool } from "../definition.ts";
import { markUntrusted } from "../../core/untrusted.ts";
import type { AddressPolicy } from "../web/address.ts";
import { getChecked } from "../web/get.ts";

/** Characters kept for HTML, JSON and other text. */
const HTML_CAP = 15_000;
const JSON_CAP = 15_000;
const OTHER_CAP = 5_000;
/** Bytes read from a response at most. */
const MAX_BODY_BYTES = 5_000_000;

export default defineTool({
  name: "fetch_url",
  description:
    "Fetch a web page or file by URL. HTML comes back as readable text (up to 15,000 characters), JSON as is, other text shortened. Private and local addresses are refused unless the user allows them.",
  category: "web",
  side_effect: "none",
  untrusted_output: true,
  permissions: { net: ["*"] },
  timeout_ms: 45_000,
  max_output_chars: HTML_CAP + 1_000,
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
      body = cap(await htmlToReadable(new TextDecoder().decode(bytes)), HTML_CAP);
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
export async function htmlToReadable(html: string): Promise<string> {
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
    selectors: [
      ...skip.map((selector) => ({ selector, format: "skip" })),
      { selector: "a", options: { ignoreHref: true } },
    ],
  }).replace(/\n{3,}/g, "\n\n").trim();
}

function cap(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}\n[… cut at ${limit} of ${text.length} characters]`;
}
