/**
 * How much work judging one command line may do. The policy expands a line
 * statically, so a short line can ask it for a great deal: variables doubled
 * twenty times, braces multiplied, globs over the whole filesystem, a walk of
 * a tree nested thousands deep. Every place where the work can grow faster
 * than the line charges this budget, and once any limit is passed the
 * judging stops with BudgetExceeded: the policy then asks, saying which limit
 * the line passed. It never allows what it did not finish judging. Knows
 * nothing of shell syntax.
 */

/** The limits on one line's judging. */
export interface JudgeLimits {
  /** Words produced by expansion (brace results and fields), over the whole line. */
  words: number;
  /** Characters produced by expansion (variables, braces, tildes, here-documents), over the whole line. */
  chars: number;
  /** Filesystem look-ups: paths followed, directory entries read, configuration files read. */
  entries: number;
  /** Wall time, in milliseconds, from the start of the judging (parsing included). */
  ms: number;
}

/**
 * The limits hob judges with. Each is far above what a line a person reads
 * before approving it needs, and small enough that judging stays well under
 * a second and a few megabytes.
 */
export const JUDGE_LIMITS: Readonly<JudgeLimits> = {
  // Twice the most one brace expansion may make (braces.ts): nobody reads more words to approve them.
  words: 20_000,
  // Twenty times the longest line run_command takes, and more than the kernel takes as one argument (128 KiB).
  chars: 200_000,
  // Each a system call (~10 µs measured): this many keeps a line's paths and globs near half a second.
  entries: 50_000,
  // Ordinary lines are judged in milliseconds; a line that needs a second is not ordinary.
  ms: 1_000,
};

/** Which limit a line passed, and by what, in words for the approval prompt. */
export class BudgetExceeded extends Error {
  override name = "BudgetExceeded";
  readonly limit: keyof JudgeLimits;

  constructor(limit: keyof JudgeLimits, message: string) {
    super(message);
    this.limit = limit;
  }
}

/** Checks of the clock between look-ups at it: reading it costs more than a counter. */
const TICKS_PER_CLOCK_READ = 64;

/**
 * The running account of one line's judging; throws BudgetExceeded from the
 * charge that passes a limit.
 *
 * @example
 * ```ts
 * const budget = new Budget();
 * budget.chars(value.length); // before building anything of that size
 * budget.tick(); // in any loop whose length the line decides
 * ```
 */
export class Budget {
  readonly limits: Readonly<JudgeLimits>;
  readonly #deadline: number;
  #words = 0;
  #chars = 0;
  #entries = 0;
  #ticks = 0;

  constructor(limits: Partial<JudgeLimits> = {}) {
    this.limits = { ...JUDGE_LIMITS, ...limits };
    this.#deadline = performance.now() + this.limits.ms;
  }

  /** Charges `n` words about to be made. */
  words(n: number): void {
    this.#words += n;
    if (this.#words > this.limits.words) {
      throw new BudgetExceeded(
        "words",
        `the line expands to more than ${count(this.limits.words)} words`,
      );
    }
    this.tick();
  }

  /** Charges `n` characters about to be made. */
  chars(n: number): void {
    this.#chars += n;
    if (this.#chars > this.limits.chars) {
      throw new BudgetExceeded(
        "chars",
        `the line expands to more than ${count(this.limits.chars)} characters`,
      );
    }
    this.tick();
  }

  /** Charges `n` filesystem look-ups about to be made. */
  entries(n = 1): void {
    this.#entries += n;
    if (this.#entries > this.limits.entries) {
      throw new BudgetExceeded(
        "entries",
        `the line's paths and patterns range over more than ${count(this.limits.entries)} files`,
      );
    }
    this.tick();
  }

  /** Checks the deadline (every so many calls): for loops whose length the line decides. */
  tick(): void {
    if (++this.#ticks % TICKS_PER_CLOCK_READ !== 0) return;
    this.deadline();
  }

  /** Checks the deadline now. */
  deadline(): void {
    if (performance.now() > this.#deadline) {
      throw new BudgetExceeded(
        "ms",
        `the line takes more than ${count(this.limits.ms)} ms to judge`,
      );
    }
  }
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}
