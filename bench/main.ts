/** `deno task bench`: every benchmark, one figure per line. */

import { formatColdStart, measureColdStart } from "./cold_start.ts";
import { formatPageLoad, measurePageLoad } from "./page.ts";
import { formatReleaseSize, measureReleaseSize } from "./release_size.ts";
import { formatScheduling, measureScheduling } from "./scheduling.ts";
import { formatToolOverhead, measureToolOverhead } from "./tool_overhead.ts";
import { formatOverhead, measureTurnOverhead } from "./turn_overhead.ts";

console.log(
  `hob benchmarks · deno ${Deno.version.deno} · ${navigator.hardwareConcurrency} cores · ${
    new Date().toISOString()
  }`,
);
for (const size of [10, 10_000]) console.log(formatOverhead(await measureTurnOverhead(size)));
console.log(formatColdStart(await measureColdStart()));
console.log(formatToolOverhead(await measureToolOverhead()));
console.log(formatScheduling(await measureScheduling()));
console.log(formatPageLoad(await measurePageLoad()));
console.log(formatReleaseSize(await measureReleaseSize()));
Deno.exit(0); // the scheduler's Deno.cron minute tick would keep the process alive
