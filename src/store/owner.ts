/**
 * Which process owns a row in progress (a streaming reply, a pending
 * approval), so another process can tell work in progress from the leftovers
 * of a crash.
 */

/**
 * This process: its pid, and a nonce that tells it from an earlier process
 * that had the same pid.
 */
export const PROCESS_OWNER = `${Deno.pid}:${crypto.randomUUID()}`;

/**
 * Whether the process that wrote `owner` (`pid:nonce`) still runs.
 *
 * @example
 * ```ts
 * isLiveOwner(PROCESS_OWNER); // true
 * ```
 */
export function isLiveOwner(owner: string): boolean {
  if (owner === PROCESS_OWNER) return true;
  const pid = Number(owner.split(":")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === Deno.pid) return false;
  return isProcessAlive(pid);
}

function isProcessAlive(pid: number): boolean {
  if (Deno.build.os === "linux") {
    try {
      Deno.statSync(`/proc/${pid}`);
      return true;
    } catch {
      return false;
    }
  }
  try {
    // SIGURG is ignored by default, so probing with it disturbs no one.
    Deno.kill(pid, "SIGURG");
    return true;
  } catch {
    return false;
  }
}
