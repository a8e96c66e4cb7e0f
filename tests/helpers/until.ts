/** Waiting in tests for something to become true, with a deadline that names what was awaited. */

/**
 * Resolves once `check` holds (checked every `everyMs`); throws naming `what`
 * after `timeoutMs`.
 *
 * @example
 * ```ts
 * await until(() => telegram.calls.length > 0, "a call");
 * ```
 */
export async function until(
  check: () => boolean,
  what: string,
  timeoutMs = 20_000,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
