/**
 * The `web_search` tool: a web search through DuckDuckGo's HTML page (no key
 * needed), a SearXNG instance or the Brave Search API, as set in
 * `tools.web.search`. Results are marked as untrusted.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { addressesInQuery } from "../tools/call_reach.ts";
import { markUntrusted } from "../core/untrusted.ts";

const USER_AGENT = "Mozilla/5.0 (compatible; hob/0.1; personal assistant)";
/** Where each provider answers unless `tools.web.search.url` says otherwise. */
const DEFAULT_URLS = {
  duckduckgo: "https://html.duckduckgo.com/html/",
  searxng: "http://127.0.0.1:8888",
  brave: "https://api.search.brave.com/res/v1/web/search",
} as const;

interface SearchSettings {
  provider: keyof typeof DEFAULT_URLS;
  url?: string;
  api_key?: string;
}

/** One result. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export default defineTool({
  name: "web_search",
  description:
    "Search the web and get the top results (title, URL, snippet). Use fetch_url to read a result.",
  category: "web",
  side_effect: "none",
  untrusted_output: true,
  // Result links may be followed in a tainted turn; a query may not name a new address.
  output_links: true,
  reaches: ({ query }) => addressesInQuery(query),
  permissions: { net: ["*"] },
  timeout_ms: 30_000,
  parameters: z.object({
    query: z.string().min(1).max(400),
    max_results: z.number().int().min(1).max(20).default(5),
  }),
  async run({ query, max_results }, context) {
    const web = context.settings.web as { search?: SearchSettings } | undefined;
    const search: SearchSettings = web?.search ?? { provider: "duckduckgo" };
    const base = search.url ?? DEFAULT_URLS[search.provider];
    const results = (await searchWith(search, base, query, context.signal)).slice(0, max_results);
    if (results.length === 0) return `No results for '${query}'.`;
    const lines = results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`);
    return markUntrusted(`web_search (${search.provider}): ${query}`, lines.join("\n\n"));
  },
});

async function searchWith(
  search: SearchSettings,
  base: string,
  query: string,
  signal: AbortSignal,
): Promise<SearchResult[]> {
  if (search.provider === "brave") {
    if (!search.api_key) throw new Error("Brave Search needs tools.web.search.api_key in hob.yaml");
    const url = new URL(base);
    url.searchParams.set("q", query);
    const body = await getJson(url, { "x-subscription-token": search.api_key }, signal) as {
      web?: { results?: { title?: string; url?: string; description?: string }[] };
    };
    return (body.web?.results ?? []).map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: stripTags(r.description ?? ""),
    }));
  }
  if (search.provider === "searxng") {
    const url = new URL("search", base.endsWith("/") ? base : `${base}/`);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    const body = await getJson(url, {}, signal) as {
      results?: { title?: string; url?: string; content?: string }[];
    };
    return (body.results ?? []).map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: r.content ?? "",
    }));
  }
  const url = new URL(base);
  url.searchParams.set("q", query);
  const response = await fetch(url, { signal, headers: { "user-agent": USER_AGENT } });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`DuckDuckGo answered ${response.status}`);
  }
  return parseDuckDuckGo(await response.text());
}

/** The little of the DOM the parser needs. */
interface HtmlNode {
  querySelectorAll(selector: string): Iterable<HtmlNode>;
  querySelector(selector: string): HtmlNode | null;
  getAttribute(name: string): string | null;
  textContent: string | null;
}

/** Results from DuckDuckGo's HTML results page. */
export async function parseDuckDuckGo(html: string): Promise<SearchResult[]> {
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html) as unknown as { document: HtmlNode };
  const results: SearchResult[] = [];
  for (const node of document.querySelectorAll(".result")) {
    const link = node.querySelector(".result__a");
    if (!link) continue;
    let href = link.getAttribute("href") ?? "";
    // Result links go through DuckDuckGo's redirector: the target is in `uddg`.
    const wrapped = /[?&]uddg=([^&]+)/.exec(href);
    if (wrapped) href = decodeURIComponent(wrapped[1]);
    if (href.startsWith("//")) href = `https:${href}`;
    results.push({
      title: (link.textContent ?? "").trim(),
      url: href,
      snippet: (node.querySelector(".result__snippet")?.textContent ?? "").replace(/\s+/g, " ")
        .trim(),
    });
  }
  return results;
}

async function getJson(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<unknown> {
  const response = await fetch(url, {
    signal,
    headers: { accept: "application/json", ...headers },
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url.host} answered ${response.status}`);
  }
  return await response.json();
}

function stripTags(text: string): string {
  return text.replace(/<[^>]+>/g, "");
}
