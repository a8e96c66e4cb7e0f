/**
 * A queue between a callback and a generator: events a running call raises
 * (an approval request) are pushed, and the turn's stream drains them while
 * the call runs. Knows nothing of what the events mean.
 */

import type { AgentEvent } from "./types.ts";

/** Events pushed by a callback, drained in order by a generator until closed. */
export interface EventQueue {
  push(event: AgentEvent): void;
  /** No more events: `drain` ends once the queue is empty. */
  close(): void;
  drain(): AsyncGenerator<AgentEvent>;
}

/**
 * A new queue.
 *
 * @example
 * ```ts
 * const queue = eventQueue();
 * const running = tools.execute(call, { emit: queue.push }).finally(queue.close);
 * yield* queue.drain();
 * const result = await running;
 * ```
 */
export function eventQueue(): EventQueue {
  const events: AgentEvent[] = [];
  let closed = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  return {
    push(event: AgentEvent) {
      events.push(event);
      poke();
    },
    close() {
      closed = true;
      poke();
    },
    async *drain(): AsyncGenerator<AgentEvent> {
      while (true) {
        if (events.length > 0) {
          yield events.shift()!;
        } else if (closed) {
          return;
        } else {
          await new Promise<void>((resolve) => wake = resolve);
        }
      }
    },
  };
}
