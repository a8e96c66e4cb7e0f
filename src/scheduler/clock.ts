/**
 * The minute tick: one `Deno.cron` registration per process (Deno allows a
 * name once) shared by the scheduler and the heartbeat. Without
 * `--unstable-cron` there is no tick, and their precise timers carry on alone.
 */

const listeners = new Set<() => void>();
let registered: boolean | undefined;

/**
 * Calls `listener` at the start of every minute; returns the unsubscribe.
 *
 * @example
 * ```ts
 * const off = onMinute(() => scheduler.tick());
 * ```
 */
export function onMinute(listener: () => void): () => void {
  listeners.add(listener);
  if (registered === undefined) {
    try {
      Deno.cron("hob minute tick", "* * * * *", () => {
        for (const each of listeners) each();
      });
      registered = true;
    } catch {
      registered = false;
    }
  }
  return () => listeners.delete(listener);
}

/** Whether the minute tick runs (false without --unstable-cron). */
export function hasMinuteTick(): boolean {
  return registered === true;
}
