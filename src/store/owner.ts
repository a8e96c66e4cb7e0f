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
  // A worker's id is the owner of its process and a slot: `pid:nonce/slot`.
  if (owner.split("/")[0] === PROCESS_OWNER) return true;
  const pid = Number(owner.split(":")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === Deno.pid) return false;
  return isProcessAlive(pid);
}

/** Whether the process `pid` runs (this one included). */
export function isProcessAlive(pid: number): boolean {
  if (pid === Deno.pid) return true;
  // /proc/<pid> would be simpler, but Deno guards /proc behind --allow-all.
  // SIGURG is ignored by default, so probing with it disturbs no one.
  try {
    Deno.kill(pid, "SIGURG");
    return true;
  } catch (error) {
    // ESRCH: no such process. Anything else (EPERM: another user's) means it exists.
    return !(error instanceof Deno.errors.NotFound);
  }
}
