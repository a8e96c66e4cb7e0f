/** Waiting a bounded time: for a promise, or for nothing but time (or a stop). */

/**
 * The promise's value, or undefined when it takes longer than `ms` (the
 * promise itself goes on).
 *
 * @example
 * ```ts
 * const title = await withTimeout(naming, 5_000); // undefined after 5 s
 * ```
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits `ms`, or less when `signal` aborts; never rejects.
 *
 * @example
 * ```ts
 * await sleep(1_000, stopping.signal); // a second, or until stopping
 * ```
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
