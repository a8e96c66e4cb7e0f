/**
 * Where fetch_url may go: public internet addresses only, unless the user
 * allows private ones. Loopback, private ranges, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, multicast and the IPv6 equivalents are refused, and
 * every redirect is checked again, so a page cannot bounce the fetch inward.
 */

import ipaddr from "ipaddr.js";

/** What the user allows beyond the public internet. */
export interface AddressPolicy {
  allow_private: boolean;
  allow_hosts: string[];
}

/**
 * Throws a readable Error unless `url` may be fetched: http(s), and a host
 * that is allowed by name or resolves only to public addresses.
 *
 * @example
 * ```ts
 * await assertFetchable(new URL("http://169.254.169.254/latest"), { allow_private: false, allow_hosts: [] });
 * // Error: refuses http://169.254.169.254/latest: 169.254.169.254 is a link-local address …
 * ```
 */
export async function assertFetchable(url: URL, policy: AddressPolicy): Promise<void> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`refuses ${url.protocol} URLs; only http and https`);
  }
  if (url.username || url.password) throw new Error("refuses URLs with credentials in them");
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (policy.allow_private || policy.allow_hosts.map((h) => h.toLowerCase()).includes(host)) return;

  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else if (host === "localhost" || host.endsWith(".localhost")) {
    addresses = ["127.0.0.1"];
  } else {
    const found = await Promise.all([
      Deno.resolveDns(host, "A").catch(() => [] as string[]),
      Deno.resolveDns(host, "AAAA").catch(() => [] as string[]),
    ]);
    addresses = found.flat();
    if (addresses.length === 0) throw new Error(`cannot resolve the host '${host}'`);
  }
  for (const address of addresses) {
    const range = rangeOf(address);
    if (range !== "unicast") {
      throw new Error(
        `refuses ${url.href}: ${host}${
          host === address ? "" : ` resolves to ${address}, which`
        } is a ${
          describe(range)
        } address — allow it with tools.web.allow_hosts or tools.web.allow_private`,
      );
    }
  }
}

function rangeOf(address: string): string {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range();
}

function describe(range: string): string {
  const names: Record<string, string> = {
    loopback: "loopback",
    private: "private-network",
    linkLocal: "link-local (cloud metadata)",
    uniqueLocal: "private-network",
    carrierGradeNat: "carrier-grade NAT",
    unspecified: "unspecified",
    multicast: "multicast",
    broadcast: "broadcast",
    reserved: "reserved",
  };
  return names[range] ?? `non-public (${range})`;
}
