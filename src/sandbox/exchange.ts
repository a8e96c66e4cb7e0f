/**
 * One exchange with a sandbox, whatever carries it — a Worker's messages or a
 * tool process's frames: the message goes out, service calls are answered on the
 * way, and the exchange settles on the first of the answer, the timeout, an
 * abort (after a short grace) or the sandbox's end.
 */

import type { FromSandbox, ToSandbox } from "./protocol.ts";

/** How one exchange with a sandbox is handled. */
export interface ExchangeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Answers the sandbox's service calls; a rejection becomes an error reply. */
  onService?(method: string, params: unknown): Promise<unknown>;
}

/** What came back: the sandbox's final message, or why there was none. */
export type ExchangeResult =
  | { ok: true; message: Extract<FromSandbox, { type: "result" | "description" }> }
  | { ok: false; reason: "timeout" | "aborted" | "crashed"; error: string };

/** Time a stopped call is given to wind down before its sandbox is ended. */
const ABORT_GRACE_MS = 100;

/**
 * Sends `message` with `send` and settles with the outcome. `listen` wires the
 * carrier's replies: it calls `finish` once with the answer or the crash, and
 * may ask `settled()` before sending anything more.
 *
 * @example
 * ```ts
 * await runExchange((m) => worker.postMessage(m), message, options, (finish) => {
 *   worker.onmessage = (event) => finish({ ok: true, message: event.data });
 * });
 * ```
 */
export function runExchange(
  send: (message: ToSandbox) => void,
  message: ToSandbox,
  options: ExchangeOptions,
  listen: (finish: (result: ExchangeResult) => void, settled: () => boolean) => void,
): Promise<ExchangeResult> {
  return new Promise<ExchangeResult>((resolve) => {
    let settled = false;
    const finish = (result: ExchangeResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish({
        ok: false,
        reason: "timeout",
        error: `timed out after ${formatSeconds(options.timeoutMs)} and was stopped`,
      });
    }, options.timeoutMs);
    const onAbort = () => {
      send({ type: "abort" });
      setTimeout(() => finish({ ok: false, reason: "aborted", error: "stopped" }), ABORT_GRACE_MS);
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    listen(finish, () => settled);
    send(message);
  });
}

/** The reply to a sandbox's service call: `onService`'s value, or its error as text. */
export async function serviceReply(
  call: { id: number; method: string; params: unknown },
  options: ExchangeOptions,
): Promise<ToSandbox> {
  try {
    if (!options.onService) throw new Error(`no hob service '${call.method}'`);
    return {
      type: "service_reply",
      id: call.id,
      ok: true,
      value: await options.onService(call.method, call.params),
    };
  } catch (error) {
    return { type: "service_reply", id: call.id, ok: false, error: (error as Error).message };
  }
}

/** `10 s`, `1.5 s`. */
export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(2).replace(/0+$/, "")} s`;
}
