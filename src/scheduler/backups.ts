/**
 * The backup schedule: while `hob serve` runs with `backup.every`, a backup
 * is made that long after the last one tried — by the schedule or by hand;
 * kept in hob.db, so a restart does not reset the count — and soon after
 * start when one is overdue. One
 * at a time; a run that fails is tried again after `every`. It keeps time
 * and calls `run`; what a backup is, is the caller's.
 */

/** How soon after start an overdue (or first) backup is made: not in the start's own rush. */
const START_DELAY_MS = 60_000;
/** The longest the timer sleeps before it looks again (a clock that jumped, a laptop that slept). */
const MAX_SLEEP_MS = 60_000;

/** What the schedule works with. */
export interface BackupScheduleDeps {
  /** Milliseconds between backups. */
  everyMs: number;
  /** When the last backup was tried (ISO 8601), made or failed; null for never. */
  lastTried(): string | null;
  /** Makes one backup; its failures are its own to record (a rejection is logged). */
  run(): Promise<unknown>;
  now?: () => Date;
  /**
   * Arm the timer (off in tests that tick by hand).
   * @default {true}
   */
  timers?: boolean;
}

/**
 * The backup schedule of one `hob serve`.
 *
 * @example
 * ```ts
 * const schedule = new BackupSchedule({ everyMs: 86_400_000, lastTried, run: () => backups.make({}, { scheduled: true }) });
 * schedule.start();
 * schedule.next(); // "2026-11-30T03:00:00.000Z"
 * ```
 */
export class BackupSchedule {
  readonly #deps: BackupScheduleDeps;
  readonly #now: () => Date;
  #next: number | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: BackupScheduleDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** Starts: the next backup `every` after the last one tried, but not before the start delay. */
  start(): void {
    const now = this.#now().getTime();
    const last = this.#deps.lastTried();
    const soonest = now + Math.min(this.#deps.everyMs, START_DELAY_MS);
    this.#next = Math.max(last ? new Date(last).getTime() + this.#deps.everyMs : 0, soonest);
    this.#arm();
  }

  /** When the next backup is due (ISO 8601), or null when the schedule is not running. */
  next(): string | null {
    return this.#next === null || this.#stopped ? null : new Date(this.#next).toISOString();
  }

  /** Makes the backup now if it is due (the timer calls this); resolves when it is done. */
  async tick(): Promise<void> {
    if (this.#stopped || this.#running || this.#next === null) return;
    const now = this.#now().getTime();
    // A backup made meanwhile (`hob backup`, the page) counts: the next is `every` after it.
    const last = this.#deps.lastTried();
    if (last) this.#next = Math.max(this.#next, new Date(last).getTime() + this.#deps.everyMs);
    if (now < this.#next) return this.#arm();
    this.#next = now + this.#deps.everyMs;
    this.#running = this.#deps.run().then(() => {}, (error) => {
      console.error(`hob: the scheduled backup failed: ${(error as Error).message}`);
    }).finally(() => this.#running = undefined);
    await this.#running;
    this.#arm();
  }

  /**
   * Stops. A backup being made is not waited for: hob stops at once, and what
   * it leaves (a `.partial-…` file) is never taken for a backup.
   */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#stopped || this.#next === null || !(this.#deps.timers ?? true)) return;
    clearTimeout(this.#timer);
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, this.#next - this.#now().getTime()));
    this.#timer = setTimeout(() => void this.tick(), delay);
    Deno.unrefTimer(this.#timer as unknown as number);
  }
}
