/**
 * Indexing with the built-in embedder, each run in a process of its own
 * (bench/indexing_child.ts) on a corpus written once: synthetic notes, and
 * chat logs (long sessions, one line per message). With one revision (this
 * tree) it is printed beside its floor, the model alone embedding the very
 * windows the index embeds in the same run: a ratio near 1 means indexing is
 * model-bound. With `--compare REV` both checkouts index the same corpus, in
 * turns, and the rates are printed side by side with their ratio.
 */

import { join } from "node:path";
import { type ChildResult, machineBusy } from "./indexing_child.ts";
import { seeded, writeChatCorpus, writeCorpus } from "./memory.ts";
import type { Revision } from "./startup.ts";

/** Runs per revision and corpus when `--runs` does not say: each takes 15–45 s. */
export const INDEXING_RUNS = 3;
/** How long one run may take before the bench is abandoned as broken. */
const RUN_TIMEOUT_MS = 600_000;
/**
 * How long a run waits for the machine to be quiet (other processes using
 * less than QUIET_CORES), then runs anyway: two threads can show what they do
 * only on cores nobody else is using, and one thread is slowed less by a
 * neighbour than two, so a busy machine biases a comparison toward one.
 */
const QUIET_WAIT_MS = 120_000;
const QUIET_CORES = 0.15;
const CHILD = new URL("./indexing_child.ts", import.meta.url).pathname;

/** A corpus: its name and how it is written into a memory directory. */
interface Corpus {
  name: string;
  write(dir: string): Promise<void>;
}

/**
 * ~300 chunks each, a backlog of 25–45 s on one thread: notes of ~900
 * characters (two windows), and four weeks of chats (three windows a chunk).
 * A second thread's warm-up (its model loading, its first slower requests) is
 * ~1 s whatever the backlog; half this size showed it as a tenth of the time.
 */
const CORPORA: Corpus[] = [
  { name: "notes", write: (dir) => writeCorpus(dir, 300, seeded(7)) },
  { name: "chats", write: (dir) => writeChatCorpus(dir, 27, seeded(11)) },
];

/** One revision's figures on one corpus: its median run, and the spread of all. */
export interface RevisionIndexing extends ChildResult {
  label: string;
  /** Every run's seconds, in the order taken (turn by turn with the other revisions). */
  times: number[];
}

/** One corpus's figures, a revision each. */
export interface CorpusIndexing {
  corpus: string;
  /** The Markdown's size, in bytes. */
  bytes: number;
  runs: number;
  revisions: RevisionIndexing[];
}

/**
 * Indexes each corpus with each revision, `runs` times in turns.
 *
 * @example
 * ```ts
 * const results = await measureIndexing([{ label: "this tree", root: "." }]);
 * ```
 */
export async function measureIndexing(
  revisions: Revision[],
  runs: number = INDEXING_RUNS,
): Promise<CorpusIndexing[]> {
  const results: CorpusIndexing[] = [];
  for (const corpus of CORPORA) {
    const dir = await Deno.makeTempDir({ prefix: `hob-bench-corpus-${corpus.name}-` });
    try {
      await corpus.write(join(dir, "memory"));
      const bytes = await sizeOf(join(dir, "memory"));
      const taken: ChildResult[][] = revisions.map(() => []);
      for (let run = 0; run < runs; run++) {
        // Turns alternate which revision goes first, so neither always follows the other.
        const turn = [...revisions.entries()];
        for (const [i, revision] of run % 2 === 0 ? turn : turn.reverse()) {
          // The floor only beside this tree alone: a comparison's floor is the other revision.
          const modelAlone = revisions.length === 1;
          await quiet();
          taken[i].push(await indexOnce(revision.root, join(dir, "memory"), modelAlone));
        }
      }
      results.push({
        corpus: corpus.name,
        bytes,
        runs,
        revisions: revisions.map((revision, i) => ({
          label: revision.label,
          ...median(taken[i]),
          times: taken[i].map((r) => r.seconds),
        })),
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  return results;
}

/** One run in a process of its own, with the revision's deno.json. */
async function indexOnce(root: string, memory: string, modelAlone: boolean): Promise<ChildResult> {
  const args = [
    "run",
    "--allow-all",
    "--unstable-worker-options",
    "--unstable-cron",
    "--config",
    join(root, "deno.json"),
    CHILD,
    "--root",
    root,
    "--memory",
    memory,
    ...(modelAlone ? ["--model-alone"] : []),
  ];
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT_MS),
  }).output();
  if (code !== 0) {
    throw new Error(`indexing at ${root} failed: ${new TextDecoder().decode(stderr).trim()}`);
  }
  return JSON.parse(new TextDecoder().decode(stdout).trim().split("\n").at(-1)!);
}

/**
 * The run of median time, its other figures with it. Not the fastest: with
 * runs of ±8% on a quiet machine (the host's weather, unseen from inside), the
 * luckiest run of either side decided a comparison more than its threads did.
 */
function median(results: ChildResult[]): ChildResult {
  return [...results].sort((a, b) => a.seconds - b.seconds)[(results.length - 1) >> 1];
}

/** Waits until the machine's cores are idle for a second (Linux), at most QUIET_WAIT_MS. */
async function quiet(): Promise<void> {
  const deadline = Date.now() + QUIET_WAIT_MS;
  while (Date.now() < deadline) {
    const before = machineBusy();
    if (before === null) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (machineBusy()! - before < QUIET_CORES) return;
  }
}

async function sizeOf(dir: string): Promise<number> {
  let bytes = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory ? await sizeOf(path) : (await Deno.stat(path)).size;
  }
  return bytes;
}

/** One line per corpus and revision: rates, cores kept busy, peak memory; then the ratio or the floor. */
export function formatIndexing(results: CorpusIndexing[]): string {
  const lines = [
    `indexing with USE-lite, the median of ${results[0]?.runs} runs, revisions in turns:`,
  ];
  for (const { corpus, bytes, revisions } of results) {
    const [first] = revisions;
    lines.push(
      `  ${corpus}: ${first.chunks} chunks, ${first.windows} windows, ${
        (bytes / 1024).toFixed(0)
      } KB`,
    );
    for (const r of revisions) {
      lines.push(
        `    ${r.label.padEnd(9)} ${(r.chunks / r.seconds).toFixed(1)} chunks/s, ${
          (r.windows / r.seconds).toFixed(1)
        } windows/s, ${(bytes / 1024 / r.seconds).toFixed(1)} KB/s in ${r.seconds.toFixed(1)} s (${
          Math.min(...r.times).toFixed(1)
        }–${Math.max(...r.times).toFixed(1)}); ${(r.cpuSeconds / r.seconds).toFixed(2)} cores busy${
          r.otherCores === null ? "" : ` (other processes ${r.otherCores.toFixed(2)})`
        }, peak RSS ${(r.peakRss / 1e6).toFixed(0)} MB`,
      );
    }
    for (const other of revisions.slice(1)) {
      // Run k of each side was taken in the same turn: their ratio shares its weather.
      const ratios = other.times.map((seconds, k) => seconds / first.times[k]).sort((a, b) =>
        a - b
      );
      lines.push(
        `    ${first.label} indexes at ${
          ratios[(ratios.length - 1) >> 1].toFixed(2)
        }× ${other.label}'s rate, the median of each turn's ratio (${ratios[0].toFixed(2)}–${
          ratios[ratios.length - 1].toFixed(2)
        }); the medians' ratio ${(other.seconds / first.seconds).toFixed(2)}×`,
      );
    }
    if (first.modelSeconds !== undefined) {
      lines.push(
        `    the model alone on the same windows ${
          (first.windows / first.modelSeconds).toFixed(1)
        } windows/s: indexing takes ${(first.seconds / first.modelSeconds).toFixed(2)}× its time`,
      );
    }
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  console.log(formatIndexing(await measureIndexing([{ label: "this tree", root }])));
}
