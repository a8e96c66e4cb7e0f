/**
 * `deno task bench [NAME…] [--compare REV] [--runs N]`: the benchmarks, each
 * figure printed as itself and as a ratio to a floor measured in the same
 * run: an empty `deno run` with hob's flags for times and memory, the model
 * alone for indexing. A NAME is a group (`startup`, `turn`, `big-message`,
 * `tool-call`, `scheduling`, `page`, `rss`, `indexing`, `size`, `channels`,
 * `speech`, `versions`, `shell-judge`, `store-lock`) or one
 * start-up figure (`version`, `serve`, `status`, `cron`, `tools`,
 * `first-token`, `sdk-first-token`); none means all. `--compare REV` checks REV out beside this
 * tree and takes the start-up, indexing and store-lock figures of both, side by side. `--runs N`
 * is how many launches (start-up) or indexing runs count.
 */

import { parseArgs } from "node:util";
import { formatBigMessages, measureBigMessages } from "./big_message.ts";
import { formatChannelLatency, measureChannelLatency } from "./channels.ts";
import { formatVersions, measureVersions } from "./versions.ts";
import { formatIndexing, measureIndexing } from "./indexing.ts";
import { formatRss, measureRss } from "./rss.ts";
import { formatPageLoad, measurePageLoad } from "./page.ts";
import { formatReleaseSize, measureReleaseSize } from "./release_size.ts";
import { formatScheduling, measureScheduling } from "./scheduling.ts";
import { formatShellJudge, measureShellJudge } from "./shell_judge.ts";
import { formatSpeech, measureSpeech } from "./speech.ts";
import { formatStoreLock, measureStoreLock } from "./store_lock.ts";
import {
  formatStartup,
  measureFloor,
  measureStartup,
  type Revision,
  RUNS,
  STARTUP_FIGURES,
} from "./startup.ts";
import { formatToolOverhead, measureToolOverhead } from "./tool_overhead.ts";
import {
  formatOverhead,
  formatQueryEmbedding,
  measureQueryEmbedding,
  measureTurnOverhead,
} from "./turn_overhead.ts";
import { checkoutWorktree } from "./worktree.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** What a group is given: the floor, and the revisions to measure side by side (this tree first). */
interface GroupContext {
  revisions: Revision[];
  /** `--runs`, when given. */
  runs?: number;
}

/** The groups besides `startup`, each printing its lines given the floor. */
const GROUPS: Record<string, (floor: number, context: GroupContext) => Promise<string>> = {
  turn: async (floor) => {
    const lines = [];
    for (const size of [10, 10_000]) {
      lines.push(formatOverhead(await measureTurnOverhead(size), floor));
    }
    lines.push(formatQueryEmbedding(await measureQueryEmbedding(), floor));
    return lines.join("\n");
  },
  "big-message": async (floor) => formatBigMessages(await measureBigMessages(), floor),
  "tool-call": async (floor) => formatToolOverhead(await measureToolOverhead(), floor),
  scheduling: async (floor) => formatScheduling(await measureScheduling(), floor),
  page: async (floor) => formatPageLoad(await measurePageLoad(), floor),
  rss: async () => formatRss(await measureRss()),
  indexing: async (_floor, { revisions, runs }) =>
    formatIndexing(await measureIndexing(revisions, runs)),
  size: async () => formatReleaseSize(await measureReleaseSize()),
  channels: async () => formatChannelLatency(await measureChannelLatency()),
  speech: async () => formatSpeech(await measureSpeech()),
  versions: async () => formatVersions(await measureVersions()),
  "shell-judge": async () => formatShellJudge(await measureShellJudge()),
  "store-lock": async (_floor, { revisions }) => formatStoreLock(await measureStoreLock(revisions)),
};

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { compare: { type: "string" }, runs: { type: "string" } },
  allowPositionals: true,
});
const known = ["startup", ...STARTUP_FIGURES.map((figure) => figure.name), ...Object.keys(GROUPS)];
const unknown = positionals.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  console.error(`bench: unknown '${unknown.join("', '")}'; choose from ${known.join(", ")}`);
  Deno.exit(2);
}
const selected = (name: string) => positionals.length === 0 || positionals.includes(name);
const figures = STARTUP_FIGURES.filter((figure) => selected("startup") || selected(figure.name));
const runs = values.runs === undefined ? undefined : Number(values.runs);

console.log(
  `hob benchmarks · deno ${Deno.version.deno} · ${navigator.hardwareConcurrency} cores · ${
    new Date().toISOString()
  }`,
);
// A block, so the worktree is removed before the exit below.
{
  let floor: number | undefined;
  const revisions: Revision[] = [{ label: "this tree", root: ROOT }];
  await using base = values.compare === undefined
    ? undefined
    : await checkoutWorktree(values.compare);
  if (base) revisions.push(base);
  if (figures.length > 0) {
    const result = await measureStartup({ revisions, figures, runs: runs ?? RUNS });
    floor = result.floor;
    console.log(formatStartup(result));
  }
  for (const [name, run] of Object.entries(GROUPS)) {
    if (!selected(name)) continue;
    floor ??= await measureFloor(runs ?? RUNS);
    console.log(await run(floor, { revisions, runs }));
  }
}
Deno.exit(0); // the scheduler's Deno.cron minute tick would keep the process alive
