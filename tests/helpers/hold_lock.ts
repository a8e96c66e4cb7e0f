/**
 * Another program holding hob.db's write lock, as `sqlite3` in `BEGIN
 * IMMEDIATE` or a backup tool would: a separate `deno` process with its own
 * node:sqlite connection. Run as a script, it takes the lock, says `locked`,
 * keeps it for the given milliseconds, commits and says `released`.
 */

import { DatabaseSync } from "node:sqlite";

/** The other program, while it runs. */
export interface LockHolder extends AsyncDisposable {
  /** Resolves when it has committed and let the lock go (`performance.now()` then). */
  released: Promise<number>;
  /** Whether it has let the lock go yet. */
  isReleased(): boolean;
}

/**
 * Starts the other program on `path` and resolves once it holds the write
 * lock; it lets go after `holdMs`.
 *
 * @example
 * ```ts
 * await using lock = await holdWriteLock(`${home}/hob.db`, 8_000);
 * await lock.released;
 * ```
 */
export async function holdWriteLock(path: string, holdMs: number): Promise<LockHolder> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${path},${path}-wal,${path}-shm`,
      `--allow-write=${path},${path}-wal,${path}-shm`,
      new URL(import.meta.url).pathname,
      path,
      String(holdMs),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  const next = async (word: string) => {
    while (!said.includes(word)) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`the lock holder ended before saying '${word}'`);
      said += value;
    }
  };
  await next("locked\n");
  let releasedAt: number | undefined;
  const released = next("released\n").then(() => releasedAt = performance.now());
  released.catch(() => {});
  return {
    released,
    isReleased: () => releasedAt !== undefined,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* it has ended */ }
      await child.status;
      await lines.cancel().catch(() => {});
    },
  };
}

if (import.meta.main) {
  const [path, ms] = Deno.args;
  const db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 10000"); // hob may be writing this very moment
  db.exec("BEGIN IMMEDIATE");
  console.log("locked");
  await new Promise((resolve) => setTimeout(resolve, Number(ms)));
  db.exec("COMMIT");
  db.close();
  console.log("released");
}
