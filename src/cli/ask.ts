/**
 * `hob ask`: one turn from the command line, streamed to stdout. A
 * translator: the message and flags become the app's turn action
 * (src/app/conversations.ts), and its refusals exit 2 (a bad value) or 1 (a
 * conversation that is not there), one line each.
 */

import { ActionError } from "../app/errors.ts";
import { collectReply } from "../core/reply.ts";
import type { AgentEvent } from "../core/types.ts";
import type { Hob } from "../app/hob.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { openOrCreateHome } from "./open.ts";
import { dim, err, outJson } from "./output.ts";
import { renderTurn } from "./render.ts";
import { promptApprovals } from "./approval_prompt.ts";
import { LineQueue, stdinLines } from "./stdin_lines.ts";

export const ask: Command = {
  name: "ask",
  summary: "Ask one question and stream the answer",
  help: `Usage: hob ask "message" [--model M] [--conversation ID] [--json] [--home DIR]

Runs one turn of the agent and streams the reply to stdout; tool activity goes
to stderr. Without a message argument, the message is read from stdin.

Options:
  --model M            model for this turn, as <provider>/<model>
  --conversation ID    continue this conversation (default: start a new one)
  --json               print the whole reply as JSON when it is done
  --home DIR           hob home (default: $HOB_HOME or ~/.hob)
  --debug              print stack traces on errors
  -h, --help           show this help

Exit status: 0 answered, 1 the model or provider failed, 2 bad usage,
130 interrupted by Ctrl-C (the partial reply is saved).`,
  options: {
    model: { type: "string", short: "m" },
    conversation: { type: "string", short: "c" },
    json: { type: "boolean" },
  },
  positionals: [0, Infinity],
  async run(parsed) {
    const message = await readMessage(parsed.positionals);
    const hob = await openOrCreateHome(parsed);
    const controller = new AbortController();
    const onInterrupt = () => controller.abort();
    Deno.addSignalListener("SIGINT", onInterrupt);
    try {
      const events = await hob.app.conversations.turn({
        message,
        model: parsed.values.model as string | undefined,
        conversation_id: parsed.values.conversation as string | undefined,
      }, { signal: controller.signal });
      return parsed.values.json ? await printReply(events) : await streamReply(hob, events);
    } catch (error) {
      if (error instanceof ActionError) throw refusal(error);
      throw error;
    } finally {
      Deno.removeSignalListener("SIGINT", onInterrupt);
      await hob.close();
    }
  },
};

/** How the turn action's fields are named on the command line. */
const FLAGS: Record<string, string> = {
  message: "the message",
  model: "--model",
  conversation_id: "--conversation",
};

/** The message: the arguments, or stdin when there are none and it is not a terminal. */
async function readMessage(positionals: string[]): Promise<string> {
  let message = positionals.join(" ").trim();
  if (!message && !Deno.stdin.isTerminal()) {
    message = (await new Response(Deno.stdin.readable).text()).trim();
  }
  if (!message) {
    throw new UsageError('hob ask: missing the message — hob ask "your question"');
  }
  return message;
}

/** The whole reply as JSON, once the turn is done. */
async function printReply(events: AsyncGenerator<AgentEvent>): Promise<number> {
  const reply = await collectReply(events);
  outJson(reply);
  return reply.status === "interrupted" ? EXIT.interrupted : reply.error ? EXIT.failure : EXIT.ok;
}

/** The reply streamed to stdout, tool activity to stderr; at a terminal, approvals are asked on the spot. */
async function streamReply(hob: Hob, events: AsyncGenerator<AgentEvent>): Promise<number> {
  const turn = await renderTurn(events, {
    onApproval: Deno.stdin.isTerminal()
      ? promptApprovals(hob.app.approvals, new LineQueue(stdinLines()))
      : undefined,
  });
  if (Deno.stderr.isTerminal()) {
    err(
      dim(
        `(conversation ${turn.conversation_id} — continue with --conversation ${turn.conversation_id})\n`,
      ),
    );
  }
  return turn.status === "interrupted" ? EXIT.interrupted : turn.failed ? EXIT.failure : EXIT.ok;
}

/** The turn action's refusal as the CLI says it: a bad value is bad usage, a missing conversation exit 1. */
function refusal(error: ActionError): Error {
  if (error.code === "not_found") {
    return new CommandError(
      `${error.message} — 'hob ask' without --conversation starts a new one`,
    );
  }
  const what = error.field ? FLAGS[error.field] : undefined;
  return new UsageError(
    what
      ? `hob ask: ${what}: ${error.issue?.message ?? error.message}`
      : `hob ask: ${error.message}`,
  );
}
