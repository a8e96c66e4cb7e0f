/**
 * One HTTP(S) GET connected to addresses already checked, never to a name
 * resolved again. node:http's `lookup` option is the pin: the connection asks
 * it for the host's addresses and gets exactly the checked ones. The URL's
 * host still goes in the Host header and, for https, in SNI and the
 * certificate check (both measured on Deno 2.9: a certificate for another
 * name is refused). `fetch` and `Deno.createHttpClient` offer no such hook
 * (the latter's "tcp" proxy transport pins plain http but speaks no TLS).
 * https connects through node:tls itself ({@linkcode TlsAgent}), which
 * trusts Deno's root store (`DENO_CERT` adds a CA) and asks no permission.
 */

import http from "node:http";
import https from "node:https";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { LookupFunction, Socket } from "node:net";
import type { Readable } from "node:stream";
import tls from "node:tls";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { CheckedAddress } from "./address.ts";
import { hostOf } from "./address.ts";
import { joinCapped } from "../bounded_text.ts";

/** How {@linkcode pinnedGet} asks. */
export interface PinnedGetOptions {
  headers: Record<string, string>;
  /** Stops the request, and reading its body. */
  signal: AbortSignal;
  /** How long to wait for the response's headers (connecting included). */
  timeoutMs: number;
}

/** A response whose body has not been read yet. */
export interface PinnedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Reads the body, decoded (gzip, deflate, br), up to `limit` bytes, then closes it. */
  read(limit: number): Promise<Uint8Array>;
  /** Drops the body unread and closes the connection. */
  discard(): void;
}

/**
 * GETs `url` from one of `addresses` (the checked resolution of its host)
 * over a fresh connection (no pooling: the next hop is pinned on its own).
 */
export function pinnedGet(
  url: URL,
  addresses: readonly CheckedAddress[],
  options: PinnedGetOptions,
): Promise<PinnedResponse> {
  const secure = url.protocol === "https:";
  const client = secure ? https : http;
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(new Error("the fetch was stopped"));
    const request = client.request({
      host: hostOf(url),
      port: url.port ? Number(url.port) : undefined,
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: options.headers,
      // A fresh connection either way: nothing pooled outlives this request.
      agent: secure ? new TlsAgent({ keepAlive: false }) : false,
      lookup: pinnedLookup(addresses),
    }, (response) => {
      clearTimeout(timer);
      resolve(wrap(response, options.signal));
    });
    const fail = (error: Error) => {
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`no response from ${url.host} within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    options.signal.addEventListener("abort", () => fail(new Error("the fetch was stopped")), {
      once: true,
    });
    request.on(
      "error",
      (error: Error) => fail(new Error(`cannot fetch ${url.href}: ${error.message}`)),
    );
    request.end();
  });
}

/**
 * An https agent that opens its connections with node:tls. Deno 2.9's own
 * reads the system's CA list first (for NODE_EXTRA_CA_CERTS), which needs sys
 * access "ca" that no `--allow-sys=…` can name, only `--allow-sys` for all of
 * it: under hob's flags every https fetch failed with "Requires sys access to
 * "ca"". The options are the agent's (pinned `lookup`, `servername` from the
 * URL's host), so the certificate is still checked against the URL's name.
 */
class TlsAgent extends https.Agent {
  override createConnection(options: tls.ConnectionOptions): Socket {
    return tls.connect(options);
  }
}

/** A `lookup` that answers only the checked addresses, whatever DNS would say now. */
function pinnedLookup(addresses: readonly CheckedAddress[]): LookupFunction {
  return (_host, options, callback) => {
    const family = options?.family;
    const wanted = family === 4 || family === "IPv4"
      ? 4
      : family === 6 || family === "IPv6"
      ? 6
      : 0;
    const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : addresses;
    if (usable.length === 0) {
      const error = Object.assign(new Error(`no IPv${wanted} address was checked`), {
        code: "ENOTFOUND",
      });
      callback(error, "");
    } else if (options?.all) {
      callback(null, usable.map(({ address, family }) => ({ address, family })));
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

function wrap(response: IncomingMessage, signal: AbortSignal): PinnedResponse {
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    read: (limit) => readDecoded(response, limit, signal),
    discard: () => response.destroy(),
  };
}

/** The body, decoded as its Content-Encoding says, up to `limit` bytes. */
async function readDecoded(
  response: IncomingMessage,
  limit: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const body = decoded(response);
  const stop = () => body.destroy(new Error("the fetch was stopped"));
  signal.addEventListener("abort", stop, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Uint8Array);
      size += (chunk as Uint8Array).length;
      if (size >= limit) break;
    }
  } finally {
    signal.removeEventListener("abort", stop);
    body.destroy();
    response.destroy();
  }
  return joinCapped(chunks, limit);
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder = encoding === "gzip" || encoding === "x-gzip"
    ? createGunzip()
    : encoding === "deflate"
    ? createInflate()
    : encoding === "br"
    ? createBrotliDecompress()
    : null;
  if (!decoder) return response;
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}
