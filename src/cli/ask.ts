/** `hob ask`: one turn from the command line, streamed to stdout. */

import { ConversationNotFoundError } from "../core/agent.ts";
import { collectReply } from "../core/reply.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, err, outJson } from "./output.ts";
import { renderTurn } from "./render.ts";
import { promptApprovals } from "./approval_prompt.ts";
import { stdinLines } from "./lines.ts";

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
    let message = parsed.positionals.join(" ").trim();
    if (!message && !Deno.stdin.isTerminal()) {
      message = (await new Response(Deno.stdin.readable).text()).trim();
    }
    if (!message) {
      throw new UsageError(
        'hob ask: missing the message — hob ask "your question"',
      );
    }

    const runtime = await openHome(parsed);
    try {
      const model = parsed.values.model as string | undefined;
      if (model) {
        const problem = runtime.llm.checkModel(model);
        if (problem) throw new UsageError(`hob ask: --model: ${problem}`);
      }
      const controller = new AbortController();
      const onInterrupt = () => controller.abort();
      Deno.addSignalListener("SIGINT", onInterrupt);
      try {
        const events = runtime.turn({
          message,
          model,
          conversation_id: parsed.values.conversation as string | undefined,
          signal: controller.signal,
        });
        if (parsed.values.json) {
          const reply = await collectReply(events);
          outJson(reply);
          return reply.status === "interrupted"
            ? EXIT.interrupted
            : reply.error
            ? EXIT.failure
            : EXIT.ok;
        }
        // At a terminal, approvals are asked on the spot; otherwise the hint says how.
        const turn = await renderTurn(events, {
          onApproval: Deno.stdin.isTerminal()
            ? promptApprovals(runtime.toolbox.approvals, stdinLines())
            : undefined,
        });
        if (Deno.stderr.isTerminal()) {
          err(
            dim(
              `(conversation ${turn.conversation_id} — continue with --conversation ${turn.conversation_id})\n`,
            ),
          );
        }
        return turn.status === "interrupted"
          ? EXIT.interrupted
          : turn.failed
          ? EXIT.failure
          : EXIT.ok;
      } finally {
        Deno.removeSignalListener("SIGINT", onInterrupt);
      }
    } catch (error) {
      if (error instanceof ConversationNotFoundError) {
        throw new CommandError(
          `${error.message} — 'hob ask' without --conversation starts a new one`,
        );
      }
      throw error;
    } finally {
      await runtime.close();
    }
  },
};
