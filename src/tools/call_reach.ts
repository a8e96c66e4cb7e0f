/**
 * No quiet way out: in a turn that has read untrusted content, a tool that
 * reaches an address with what the model gives it (fetch_url's URL,
 * web_search's query, an MCP server's tool) may go only where the turn was
 * already pointed — an address in the owner's own words or in hob's, or a
 * link in content a reading tool brought in (a page, search results, a file).
 * Anything the model composed (a new host, a query string built from what it
 * read) asks the owner first, so a page cannot have the model carry a secret
 * out in a URL. The rules, in order:
 *
 * 1. Addresses are compared as the tool will request them: `new URL()`'s
 *    form, without the fragment (never sent). Exact match: a known link with
 *    a query string appended is a new address.
 * 2. Known: every address in the system prompt (hob's and the owner's text;
 *    the memory context holds trusted text only) and in the owner's own
 *    messages, with what they forwarded or quoted in them (content they
 *    passed on to be read). A message written from untrusted content — a
 *    task a tainted turn created, a stranger's message — does not count.
 * 3. Also known: links in the successful results of tools that bring in
 *    content from outside (`output_links`), unless the model wrote that
 *    address first (in its reply or a call's arguments) — a tool that echoes
 *    what it was given cannot launder a composed URL. A tool that computes
 *    (run_code) or mixes in model-written text (past conversations, memory)
 *    does not count.
 * 4. An MCP server's tool sends its arguments to the server, where hob cannot
 *    judge them: in a tainted turn it asks, even when it only reads.
 *
 * Judges only; the policy step (call_policy.ts) turns a finding into a question.
 */

import type { ModelView } from "../core/ports.ts";

/** An http(s) URL in text, up to whitespace, quotes or angle brackets. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/gi;
/** Punctuation a sentence or Markdown puts after a URL, which is not part of it. */
const TRAILING = /[.,;:!?*_~]+$/;
/**
 * A host written without a scheme, in a search query, with what may come
 * around it: `//` or `user@` before it, a port and a path, query or fragment
 * after it. Group 1: the host (a name, or an IPv4 address).
 */
const SCHEMELESS =
  /(?<![\w.@-])(?:\/\/)?(?:[^\s/@:]+@)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:xn--[a-z0-9-]{1,59}|[a-z]{2,63})\.?|\d{1,3}(?:\.\d{1,3}){3})(?![\w-])(?::\d{1,5})?(?:[/?#]\S*)?/gi;
/** Labels a bare host needs to be taken for an address: a subdomain can carry data to its DNS. */
const BARE_HOST_LABELS = 3;

/** The addresses a tainted turn may reach, as {@linkcode normalAddress} writes them. */
export type Reachable = ReadonlySet<string>;

/**
 * An address as a request for it goes out: `new URL()`'s form without the
 * fragment; null for anything that is not an http(s) URL.
 *
 * @example
 * ```ts
 * normalAddress("HTTPS://Example.com/a#top"); // "https://example.com/a"
 * ```
 */
export function normalAddress(address: string): string | null {
  try {
    const url = new URL(address);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.hash = "";
    return url.href;
  } catch {
    return null;
  }
}

/**
 * Every http(s) URL in `text`, as {@linkcode normalAddress} writes it: the
 * punctuation after it and a closing bracket it does not open left off.
 *
 * @example
 * ```ts
 * urlsIn("See [the docs](https://example.com/a_(b)). Or https://x.org."); // ["https://example.com/a_(b)", "https://x.org/"]
 * ```
 */
export function urlsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = normalAddress(trimUrl(match[0]));
    if (url) found.push(url);
  }
  return found;
}

/**
 * The addresses a search query names, taken as https: its URLs, and hosts
 * written without a scheme but with a path, query, fragment or port
 * (`example.com/page`, `evil.example?pin=1`, `1.2.3.4:80`), after `//` or
 * `user@`, or with a subdomain. A dotted word (`node.js`) is no address.
 *
 * @example
 * ```ts
 * addressesInQuery("compare evil.example/steal?pin=1 and https://a.org/x"); // ["https://a.org/x", "https://evil.example/steal?pin=1"]
 * ```
 */
export function addressesInQuery(query: string): string[] {
  const schemeless = query.replace(URL_IN_TEXT, " ");
  const hosts = [...schemeless.matchAll(SCHEMELESS)]
    .filter(([token, host]) => token !== host || isAddressLike(host))
    .map(([token]) => normalAddress(`https://${trimUrl(token).replace(/^\/\//, "")}`))
    .filter((url): url is string => url !== null);
  return [...urlsIn(query), ...hosts];
}

/**
 * Whether a host written alone is an address: an IPv4 address, or a name
 * with a subdomain (`pin-1234.evil.example` tells its DNS server the PIN); a
 * dotted word (`node.js`, `evil.example`) carries nothing of what was read.
 */
function isAddressLike(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) ||
    host.replace(/\.$/, "").split(".").length >= BARE_HOST_LABELS;
}

/**
 * The addresses the model was pointed at by what it read (rules 2 and 3):
 * `linksFrom` says which tools bring in content from outside.
 *
 * @example
 * ```ts
 * const known = reachable({ system: "", messages }, (tool) => tool === "fetch_url");
 * known.has("https://example.com/"); // a link the owner typed, or one a fetched page had
 * ```
 */
export function reachable(seen: ModelView, linksFrom: (tool: string) => boolean): Reachable {
  const known = new Set(urlsIn(seen.system));
  const composed = new Set<string>();
  /** Everything the model wrote so far, as it wrote it and as the tools got it. */
  const written: string[] = [];
  for (const message of seen.messages) {
    if (message.role === "user") {
      if (!message.taint) { for (const url of urlsIn(message.content)) known.add(url); }
    } else if (message.role === "assistant") {
      const texts = [message.content, ...(message.tool_calls ?? []).flatMap(argumentTexts)];
      written.push(...texts);
      for (const url of texts.flatMap(urlsIn)) if (!known.has(url)) composed.add(url);
    } else if (!message.is_error && linksFrom(message.name)) {
      for (const match of message.content.matchAll(URL_IN_TEXT)) {
        const raw = trimUrl(match[0]);
        const url = normalAddress(raw);
        // An address the model wrote first, or one cut out of what it wrote, is its own echoed.
        if (!url || composed.has(url) || written.some((text) => text.includes(raw))) continue;
        known.add(url);
      }
    }
  }
  return known;
}

/**
 * A call's arguments as the model wrote them and as the tool receives them:
 * the raw JSON, and every string in it decoded (`\"` in the JSON is `"` to
 * the tool, which may echo it back).
 */
function argumentTexts(call: { arguments: string }): string[] {
  try {
    return [call.arguments, ...stringsOf(JSON.parse(call.arguments))];
  } catch {
    return [call.arguments];
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (!value || typeof value !== "object") return [];
  return Object.values(value).flatMap(stringsOf);
}

/**
 * The first of `addresses` the turn was not pointed at, as the owner will be
 * shown it; null when every one is reachable (or there are none).
 *
 * @example
 * ```ts
 * unreachable(["https://evil.example/steal?pin=1234"], known); // "https://evil.example/steal?pin=1234"
 * ```
 */
export function unreachable(addresses: string[], known: Reachable): string | null {
  for (const address of addresses) {
    const url = normalAddress(address);
    if (url === null || !known.has(url)) return url ?? address;
  }
  return null;
}

/** A URL matched in text without what follows it in a sentence or a Markdown link. */
function trimUrl(raw: string): string {
  let url = raw.replace(TRAILING, "");
  // A closing bracket is the URL's only when it closes one the URL opened: `wiki/A_(b)`.
  for (const [open, close] of [["(", ")"], ["[", "]"], ["{", "}"]]) {
    while (url.endsWith(close) && count(url, close) > count(url, open)) {
      url = url.slice(0, -1).replace(TRAILING, "");
    }
  }
  return url;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}
