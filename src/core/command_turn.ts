/**
 * A `/command` turn: the command's output is the reply, stored as the
 * assistant's message (labelled by its own provenance); no model call. Knows
 * the command port, nothing of tools or prompts.
 */

import type { AgentDeps } from "./deps.ts";
import { eventQueue } from "./event_queue.ts";
import type { Turn } from "./turn.ts";
import type { AgentEvent } from "./types.ts";
import { untrustedSource } from "./untrusted.ts";

/**
 * Runs the command, streaming the events it raises, then yields its reply (or
 * its error) and `done`.
 *
 * @example
 * ```ts
 * const command = deps.commands?.match(input.message);
 * if (command) return yield* runCommand(deps, command, turn);
 * ```
 */
export async function* runCommand(
  deps: AgentDeps,
  command: { name: string; input: string },
  turn: Pick<Turn, "conversationId" | "model" | "input" | "messageIds">,
): AsyncGenerator<AgentEvent> {
  const queue = eventQueue();
  let reply = "";
  let failure: string | null = null;
  const running = deps.commands!.run(command.name, command.input, {
    conversation_id: turn.conversationId,
    signal: turn.input.signal,
    emit: queue.push,
    depth: turn.input.depth ?? 0,
    model: turn.model,
  }).then((text) => reply = text, (error) => failure = (error as Error).message).finally(
    queue.close,
  );
  yield* queue.drain();
  await running;
  const interrupted = turn.input.signal?.aborted ?? false;
  const content = failure ? `/${command.name} failed: ${failure}` : reply;
  const row = await deps.store.write(() =>
    deps.store.addMessage({
      conversation_id: turn.conversationId,
      role: "assistant",
      content,
      model: `skill/${command.name}`,
      status: interrupted ? "interrupted" : failure ? "error" : "complete",
      // A skill's reply made from untrusted content taints the turns that read it.
      taint: untrustedSource(content),
    })
  );
  turn.messageIds.push(row.id);
  if (failure) yield { type: "error", code: "command_failed", message: content };
  else if (content) yield { type: "text", text: content };
  yield {
    type: "done",
    conversation_id: turn.conversationId,
    status: interrupted ? "interrupted" : failure ? "error" : "complete",
    message_id: row.id,
    message_ids: turn.messageIds,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}
