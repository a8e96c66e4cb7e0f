/**
 * One GET of a URL the way hob fetches from the web: each hop's host resolved
 * once, checked against the address policy, and connected to at exactly the
 * checked address (no DNS rebinding); redirects followed, each checked like
 * the first URL; the body read up to a limit. `fetch_url` and the sources
 * added to memory use it.
 */

import { type AddressPolicy, resolveFetchable } from "./address.ts";
import { pinnedGet, type PinnedResponse } from "./pinned_http.ts";

/** Redirects followed, each checked like the first URL. */
export const MAX_REDIRECTS = 5;
/** How long a hop may take to answer with headers, connecting included. */
const RESPONSE_TIMEOUT_MS = 20_000;
const USER_AGENT = "Mozilla/5.0 (compatible; hob/0.1; personal assistant)";

/** What came back: where from (after redirects), its status and type, and the body. */
export interface FetchedUrl {
  url: URL;
  status: number;
  /** The `Content-Type` header in lower case, "" when there was none. */
  contentType: string;
  bytes: Uint8Array;
}

/** How {@linkcode getChecked} asks. */
export interface GetOptions {
  signal: AbortSignal;
  /** The `Accept` header. */
  accept: string;
  /** Bytes of the body read at most. */
  maxBytes: number;
}

/**
 * GETs `url` under `policy`; throws a readable Error for an address the
 * policy refuses, too many redirects, or a failed connection.
 *
 * @example
 * ```ts
 * const page = await getChecked(new URL("https://example.com"), { allow_private: false, allow_hosts: [] }, {
 *   signal: AbortSignal.timeout(30_000), accept: "text/html", maxBytes: 5_000_000,
 * });
 * ```
 */
export async function getChecked(
  url: URL,
  policy: AddressPolicy,
  options: GetOptions,
): Promise<FetchedUrl> {
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // One resolution per connection: the addresses checked are the ones connected to.
    const addresses = await resolveFetchable(target, policy);
    const response: PinnedResponse = await pinnedGet(target, addresses, {
      signal: options.signal,
      timeoutMs: RESPONSE_TIMEOUT_MS,
      headers: {
        "user-agent": USER_AGENT,
        accept: options.accept,
        "accept-encoding": "gzip, deflate, br",
      },
    });
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      response.discard();
      target = new URL(location, target);
      continue;
    }
    return {
      url: target,
      status: response.status,
      contentType: String(response.headers["content-type"] ?? "").toLowerCase(),
      bytes: await response.read(options.maxBytes),
    };
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}
