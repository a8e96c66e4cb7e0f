/** `hob worker`: a process that runs background tasks from the shared hob.db. */

import { type Command, EXIT } from "./command.ts";
import { openProcessHome } from "./open.ts";
import { dim, err, out } from "./output.ts";

export const worker: Command = {
  name: "worker",
  summary: "Run background tasks (alongside or instead of 'hob serve')",
  help: `Usage: hob worker [--once] [--home DIR]

Claims tasks from the queue in hob.db and runs them until Ctrl-C or SIGTERM.
Any number of workers — 'hob worker' processes and those inside 'hob serve'
(tasks.workers in hob.yaml) — share one queue; each task runs exactly once.

Options:
  --once         run the tasks that are ready, then exit
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { once: { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    // A process of hob's: it runs the background's task worker itself.
    const runtime = await openProcessHome(parsed, { create: false });
    const stopping = new AbortController();
    const stop = () => stopping.abort();
    const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
    for (const signal of signals) Deno.addSignalListener(signal, stop);
    try {
      const worker = runtime.background.worker("worker");
      if (!parsed.values.once) {
        err(dim(`hob worker ${worker.id} waiting for tasks · home ${runtime.home}\n`));
      }
      const ran = await worker.loop(stopping.signal, {
        once: Boolean(parsed.values.once),
        onRun: ({ task, status }) => err(dim(`task ${task.id} ${status}: ${task.title}\n`)),
      });
      out(`Ran ${ran} task(s).\n`);
      return EXIT.ok;
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, stop);
      await runtime.close();
    }
  },
};
