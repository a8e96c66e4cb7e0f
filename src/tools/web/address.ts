/**
 * Where fetch_url may go: public internet addresses only, unless the user
 * allows private ones. Loopback, private ranges, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, multicast and the IPv6 equivalents are refused.
 *
 * A name is resolved once per connection and the addresses that passed the
 * check are the ones connected to ({@linkcode resolveFetchable} feeds
 * pinned_http.ts): resolving again to connect would let a DNS server answer a
 * public address to the check and 127.0.0.1 to the connection (rebinding).
 * Every redirect is resolved, checked and pinned again, so a page cannot
 * bounce the fetch inward either.
 */

import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";

/** What the user allows beyond the public internet, and whom to ask for names. */
export interface AddressPolicy {
  allow_private: boolean;
  allow_hosts: string[];
  /**
   * A DNS server ("IP:port", "[IPv6]:port") names are resolved with; unset, the
   * system's resolver (which also reads the hosts file).
   */
  dns_server?: string;
}

/** An address a connection may be made to, having passed the check. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Checks `url` and resolves its host once, returning the addresses a
 * connection to it must use; throws a readable Error unless it may be
 * fetched: http(s), no credentials, and a host that is allowed by name or
 * resolves only to public addresses.
 *
 * @example
 * ```ts
 * await resolveFetchable(new URL("http://169.254.169.254/latest"), { allow_private: false, allow_hosts: [] });
 * // Error: refuses http://169.254.169.254/latest: 169.254.169.254 is a link-local address …
 * ```
 */
export async function resolveFetchable(
  url: URL,
  policy: AddressPolicy,
): Promise<CheckedAddress[]> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`refuses ${url.protocol} URLs; only http and https`);
  }
  if (url.username || url.password) throw new Error("refuses URLs with credentials in them");
  const host = hostOf(url);
  const allowed = policy.allow_private ||
    policy.allow_hosts.map((h) => h.toLowerCase()).includes(host);

  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else if (host === "localhost" || host.endsWith(".localhost")) {
    // Never asked of a resolver: these names are loopback by definition (RFC 6761).
    addresses = ["127.0.0.1", "::1"];
  } else {
    addresses = await resolveName(host, policy.dns_server);
    if (addresses.length === 0) throw new Error(`cannot resolve the host '${host}'`);
  }
  if (!allowed) {
    for (const address of addresses) assertPublic(url, host, address);
  }
  return addresses.map((address) => ({
    address,
    family: ipaddr.parse(address).kind() === "ipv6" ? 6 : 4,
  }));
}

/** The URL's host as resolvers and the checks see it: lower case, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/**
 * Every address `host` resolves to, from one resolution: A and AAAA asked of
 * `dnsServer` when set, else the system's resolver (getaddrinfo, as a
 * connection by name would have used). Empty when it does not resolve.
 */
export async function resolveName(host: string, dnsServer?: string): Promise<string[]> {
  if (!dnsServer) {
    const found = await lookup(host, { all: true, verbatim: true }).catch(() => []);
    return [...new Set(found.map((entry) => entry.address))];
  }
  const nameServer = parseDnsServer(dnsServer);
  const [v4, v6] = await Promise.all([
    Deno.resolveDns(host, "A", { nameServer }).catch(() => [] as string[]),
    Deno.resolveDns(host, "AAAA", { nameServer }).catch(() => [] as string[]),
  ]);
  return [...v4, ...v6];
}

/** "IP:port" or "[IPv6]:port" (port 53 when left out) as Deno.resolveDns takes it. */
export function parseDnsServer(server: string): { ipAddr: string; port: number } {
  const match = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(server) ??
    /^([0-9.]+)(?::(\d{1,5}))?$/.exec(server);
  const port = Number(match?.[2] ?? 53);
  if (!match || !ipaddr.isValid(match[1]) || port < 1 || port > 65_535) {
    throw new Error(
      `tools.web.dns_server '${server}' is not 'IP:port', e.g. '1.1.1.1:53' or '[2606:4700:4700::1111]:53'`,
    );
  }
  return { ipAddr: match[1], port };
}

function assertPublic(url: URL, host: string, address: string): void {
  const range = rangeOf(address);
  if (range === "unicast") return;
  throw new Error(
    `refuses ${url.href}: ${host}${host === address ? "" : ` resolves to ${address}, which`} is a ${
      describe(range)
    } address — allow it with tools.web.allow_hosts or tools.web.allow_private`,
  );
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
