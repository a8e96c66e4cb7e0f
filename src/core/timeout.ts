/** Waiting a bounded time for a promise. */

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
