/**
 * How a skill's URL is fetched: through hob's checked web access
 * (tools/web/get.ts: each hop's address resolved once and checked against
 * `tools.web`, redirects checked alike, the body read up to a limit), over
 * https — plain http only to a host `tools.web` lets hob reach inside the
 * network. An address refused is the caller's to change (a SkillSourceError,
 * a 400 naming `source`); a server that cannot be reached is not.
 */

import type { AddressPolicy } from "../tools/web/address.ts";
import type { FetchedArchive, SkillFetch } from "../skills/source.ts";
import { SkillSourceError } from "../skills/source_error.ts";
import { ActionError } from "./errors.ts";

/** How long fetching a skill may take. */
const FETCH_TIMEOUT_MS = 60_000;

/**
 * Fetches under `policy`.
 *
 * @example
 * ```ts
 * const fetch = skillFetch({ allow_private: false, allow_hosts: [] });
 * await readSkillSource("https://example.com/pdf.skill", cwd, { fetch });
 * ```
 */
export function skillFetch(policy: AddressPolicy): SkillFetch {
  return async (url, maxBytes) => {
    await checkHttp(url, policy);
    // Loaded when a URL is first added: start-up needs no web client.
    const { getChecked } = await import("../tools/web/get.ts");
    let fetched: FetchedArchive;
    try {
      fetched = await getChecked(url, policy, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        accept: "application/zip,application/gzip,application/octet-stream;q=0.9,*/*;q=0.5",
        maxBytes,
      });
    } catch (error) {
      const message = (error as Error).message;
      if (/^refuses /.test(message)) throw new SkillSourceError(message, { cause: error });
      throw new ActionError("failed", `Could not fetch ${url.href}: ${message}`, { cause: error });
    }
    // A redirect may not take the fetch down to plain http either.
    if (fetched.url.href !== url.href) await checkHttp(fetched.url, policy);
    return fetched;
  };
}

/**
 * Refuses plain http to a host that is not inside the network the policy
 * opens: one named in `allow_hosts`, or with `allow_private` one whose
 * addresses are all private.
 */
async function checkHttp(url: URL, policy: AddressPolicy): Promise<void> {
  if (url.protocol !== "http:") return;
  const { hostOf, resolveFetchable } = await import("../tools/web/address.ts");
  const host = hostOf(url);
  if (policy.allow_hosts.some((allowed) => allowed.toLowerCase() === host)) return;
  if (policy.allow_private) {
    // Resolved as the public internet only: refused means the host is inside the network.
    const inside = await resolveFetchable(url, { ...policy, allow_private: false, allow_hosts: [] })
      .then(() => false, () => true);
    if (inside) return;
  }
  throw new SkillSourceError(
    `refuses ${url.href}: a skill is fetched over https, or over http only from a host tools.web.allow_hosts names (or a private one, with tools.web.allow_private)`,
  );
}
