/**
 * Showing a turn on a terminal as it streams: the reply's text on stdout, tool
 * activity and notices dimmed on stderr, errors in red on stderr. Outside text
 * in a tool's result shows after a marker naming its source, never as the
 * model's label.
 */

import type { AgentEvent, TurnStatus } from "../core/types.ts";
import { plainText } from "../core/untrusted.ts";
import { dim, err, out, red } from "./output.ts";

/** How much of a tool's arguments and result a terminal line shows. */
const PREVIEW_CHARS = 120;

/** What a rendered turn ended with. */
export interface RenderedTurn {
  conversation_id: string;
  status: TurnStatus;
  failed: boolean;
}

/**
 * Prints a turn's events as they come.
 *
 * @example
 * ```ts
 * const { status } = await renderTurn(runtime.turn({ message: "hi" }));
 * ```
 */
export async function renderTurn(
  events: AsyncIterable<AgentEvent>,
  options: {
    afterPrompt?: boolean;
    /**
     * Asks the user about a tool call while the turn waits (`signal` aborts when
     * it was decided elsewhere; true when answered here); without it, how to
     * decide elsewhere is printed.
     */
    onApproval?: (
      event: Extract<AgentEvent, { type: "approval_required" }>,
      signal: AbortSignal,
    ) => Promise<boolean>;
  } = {},
): Promise<RenderedTurn> {
  const result: RenderedTurn = {
    conversation_id: "",
    status: "complete",
    failed: false,
  };
  // After a prompt such as "hob › ", tool lines start on a line of their own.
  let atLineStart = !options.afterPrompt;
  const newline = () => {
    if (!atLineStart) out("\n");
    atLineStart = true;
  };
  const prompts = new Map<string, { controller: AbortController; answered: Promise<boolean> }>();
  for await (const event of events) {
    switch (event.type) {
      case "start":
        result.conversation_id = event.conversation_id;
        break;
      case "text":
        out(event.text);
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool_call":
        newline();
        err(dim(`⚙ ${event.name} ${preview(event.arguments)}\n`));
        break;
      case "tool_result":
        err(
          dim(
            `  ${event.is_error ? "✗" : "↳"} ${
              preview(plainText(event.content))
            } (${event.duration_ms} ms)\n`,
          ),
        );
        break;
      case "approval_required":
        newline();
        err(`⏸ ${event.name} wants to run with ${preview(event.arguments)}\n`);
        if (event.reason) err(dim(`  why it asks: ${event.reason}\n`));
        if (options.onApproval) {
          // Asked beside the turn, not in its way: a decision made elsewhere ends the question.
          const controller = new AbortController();
          prompts.set(event.approval_id, {
            controller,
            answered: options.onApproval(event, controller.signal),
          });
        } else {
          err(dim(`  decide with: hob approvals approve ${event.approval_id}  (or deny)\n`));
        }
        break;
      case "approval_resolved": {
        const prompt = prompts.get(event.approval_id);
        prompts.delete(event.approval_id);
        prompt?.controller.abort();
        if (prompt && !await prompt.answered) err(`\n  ${event.status} elsewhere\n`);
        if (event.status !== "approved") err(dim(`  ${event.status}: not run\n`));
        break;
      }
      case "notice":
        // A taint the conversation had already was told on the turn that first read it.
        if (event.repeat) break;
        newline();
        err(dim(`note: ${event.message}\n`));
        break;
      case "error":
        newline();
        err(`${red("error:")} ${event.message}\n`);
        result.failed = true;
        break;
      case "done":
        newline();
        result.status = event.status;
        if (event.status === "interrupted") {
          err(dim("(interrupted — the partial reply was saved)\n"));
        }
        break;
    }
  }
  // A question the turn no longer waits for (it was stopped) is not asked on.
  for (const prompt of prompts.values()) prompt.controller.abort();
  return result;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}
