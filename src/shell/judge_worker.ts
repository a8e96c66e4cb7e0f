/// <reference lib="deno.worker" />
/**
 * The Worker the shell policy judges command lines in, started by
 * judge_thread.ts (it may read files and the environment, nothing else). It
 * loads the parser once, says it is ready, then judges one line per message
 * with the policy's own `judgeCommand`. Whatever a line makes the judging do
 * happens here, on this thread and never on hob's.
 */

import { loadShell } from "./parse.ts";
import { judgeCommand } from "./policy.ts";
import type { FromJudge, ToJudge } from "./judge_thread.ts";

function send(message: FromJudge): void {
  self.postMessage(message);
}

self.onmessage = async (event: MessageEvent<ToJudge>) => {
  const { id, command, settings } = event.data;
  try {
    send({ id, verdict: await judgeCommand(command, settings) });
  } catch (error) {
    send({ id, error: error instanceof Error ? error.message : String(error) });
  }
};

try {
  await loadShell();
  send({ ready: true });
} catch (error) {
  send({ failed: error instanceof Error ? error.message : String(error) });
}
