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

/**
 * Resolves once the asynchronous `check` holds (a request to a running hob,
 * a file read), checked every `everyMs`; throws naming `what` after `timeoutMs`.
 *
 * @example
 * ```ts
 * await eventually(async () => (await hob.fetch("/api/status")).ok, "hob's status");
 * ```
 */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
