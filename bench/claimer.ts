/** One bare claimer for the claim benchmark: claims and finishes tasks from hob.db until none is left. */

import { openDatabase } from "../src/store/database.ts";
import { SqliteTasks } from "../src/store/tasks.ts";
import { PROCESS_OWNER } from "../src/store/owner.ts";

const db = openDatabase(Deno.args[0]);
const tasks = new SqliteTasks(db);
const worker = `${PROCESS_OWNER}/0`;
const ids: number[] = [];
const started = performance.now();
for (let task; (task = tasks.claim(worker));) {
  ids.push(task.id);
  tasks.finish(task.id, worker, { status: "complete", output: "ok" });
}
const ended = performance.now();
db.close();
// Wall-clock times, so the benchmark can span all claimers from the first claim to the last.
console.log(
  JSON.stringify({
    ids,
    start: performance.timeOrigin + started,
    end: performance.timeOrigin + ended,
  }),
);
