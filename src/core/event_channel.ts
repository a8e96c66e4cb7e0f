/**
 * A queue between a callback and a generator: events a running call raises
 * (an approval request) are pushed, and the turn's stream drains them while
 * the call runs. Knows nothing of what the events mean.
 */

import type { AgentEvent } from "./types.ts";

/** Events pushed by a callback, drained in order by a generator until closed. */
export interface EventChannel {
  push(event: AgentEvent): void;
  /** No more events: `drain` ends once the queue is empty. */
  close(): void;
  drain(): AsyncGenerator<AgentEvent>;
}

/**
 * A new channel.
 *
 * @example
 * ```ts
 * const channel = eventChannel();
 * const running = tools.execute(call, { emit: channel.push }).finally(channel.close);
 * yield* channel.drain();
 * const result = await running;
 * ```
 */
export function eventChannel(): EventChannel {
  const queue: AgentEvent[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  return {
    push(event: AgentEvent) {
      queue.push(event);
      poke();
    },
    close() {
      closed = true;
      poke();
    },
    async *drain(): AsyncGenerator<AgentEvent> {
      while (true) {
        if (queue.length > 0) {
          yield queue.shift()!;
        } else if (closed) {
          return;
        } else {
          await new Promise<void>((resolve) => wake = resolve);
        }
      }
    },
  };
}
