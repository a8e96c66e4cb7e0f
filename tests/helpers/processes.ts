/**
 * Processes as Linux sees them (/proc), for tests that must know a process
 * hob started has ended — killed, or gone with the hob that started it — or
 * that it is busy looping.
 */

/** The ids of the live processes for which `match` holds, given each one's argv and working directory. */
export function processesWhere(
  match: (process: { argv: string[]; cwd: string }) => boolean,
): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      const cwd = Deno.readLinkSync(`/proc/${entry.name}/cwd`);
      if (match({ argv, cwd })) pids.push(Number(entry.name));
    } catch { /* it ended while we looked, or is not ours to read */ }
  }
  return pids;
}

/**
 * The CPU time, in seconds, of the busiest thread of a process (0 once it is
 * gone): past a second, it is looping — starting spreads over threads and
 * takes a fraction of that.
 */
export function busiestThreadSeconds(pid: number): number {
  let most = 0;
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/stat`);
      // Fields after the thread's name in parentheses: the 14th and 15th are user and system time.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      most = Math.max(most, (Number(fields[11]) + Number(fields[12])) / 100);
    }
  } catch { /* it ended while we looked */ }
  return most;
}

/**
 * Starts `script` (TypeScript using hob's modules, with hob's flags) as a
 * stand-in for hob, and kills it with SIGKILL once `ready` holds: what a crash
 * or `kill -9` does to hob.
 */
export async function killMidway(script: string, ready: () => boolean): Promise<void> {
  const { until } = await import("./until.ts");
  const { spawnHobCode } = await import("./hob_process.ts");
  const hob = await spawnHobCode(script, { stdout: "null", stderr: "null" });
  try {
    await until(ready, "the stand-in for hob to be midway");
  } finally {
    hob.kill("SIGKILL");
    await hob.status;
  }
}
