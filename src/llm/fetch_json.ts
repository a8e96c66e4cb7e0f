/**
 * The one GET that model discovery makes, with a short timeout and errors that
 * read well in `hob models` and `hob doctor`.
 */

/** How long model discovery waits for a provider. */
export const DISCOVERY_TIMEOUT_MS = 3_000;

/** GETs JSON for discovery, with its own short timeout; throws readable errors. */
export async function getJson(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers,
      signal: AbortSignal.any([
        signal,
        AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
      ]),
    });
  } catch (error) {
    if ((error as Error).name === "TimeoutError") {
      throw new Error(
        `no answer from ${url} within ${DISCOVERY_TIMEOUT_MS / 1000} s`,
      );
    }
    throw new Error(`not reachable at ${url}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  return await response.json();
}
