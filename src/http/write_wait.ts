/**
 * Requests that change something wait here, briefly and without blocking,
 * while another program holds hob.db's write lock: past the runtime's wait
 * they are answered 503 `store_busy` with `Retry-After` (errors.ts) before
 * their handler runs; otherwise the handler's writes find the lock free.
 * Reads never wait: under WAL they read while another program writes. Knows
 * methods and paths, nothing of what a handler writes.
 */

import type { MiddlewareHandler } from "hono";

/** Paths whose POSTs write nothing to hob.db: JSON-RPC (reads and writes alike), speech. */
const WRITE_NOTHING = ["/mcp", "/v1/audio/", "/api/speech", "/api/transcriptions"];

/** Methods that only read. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The middleware: `writable` resolves once hob.db can be written (and rejects,
 * saying it is busy, when the request's wait is over); the request's signal
 * stops the wait when the client leaves.
 *
 * @example
 * ```ts
 * api.use("*", waitToWrite((signal) => hob.writable(signal)));
 * ```
 */
export function waitToWrite(writable: (signal: AbortSignal) => Promise<void>): MiddlewareHandler {
  return async function waitToWrite(c, next) {
    const { path } = c.req;
    if (!READS.has(c.req.method) && !WRITE_NOTHING.some((prefix) => path.startsWith(prefix))) {
      await writable(c.req.raw.signal);
    }
    await next();
  };
}
