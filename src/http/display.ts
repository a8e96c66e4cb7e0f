/**
 * Tool output as the API hands it to people's screens: a result that carries
 * `<untrusted source="…">` labels (approved ones too) also comes as
 * `display`, the text in parts with the source of each
 * (src/core/untrusted.ts), so the page shows a marker naming the source and
 * never the markup. `content` stays as the model read it. Knows no route;
 * the turn stream and the message listing use it.
 */

import type { AgentEvent, StoredMessage } from "../core/types.ts";
import { type DisplayPart, displayParts, isLabelled } from "../core/untrusted.ts";

/** Something with a `content` a person may read, and its `display` when it is labelled. */
export type WithDisplay<T> = T & { display?: DisplayPart[] };

/**
 * A turn's event for the wire: a labelled tool result gains `display`.
 *
 * @example
 * ```ts
 * await stream.writeSSE({ event: event.type, data: JSON.stringify(eventForPeople(event)) });
 * ```
 */
export function eventForPeople(event: AgentEvent): WithDisplay<AgentEvent> {
  if (event.type !== "tool_result") return event;
  return withDisplay(event);
}

/**
 * A stored message for the wire: a labelled tool result gains `display`.
 *
 * @example
 * ```ts
 * c.json({ messages: messages.map(messageForPeople) });
 * ```
 */
export function messageForPeople(message: StoredMessage): WithDisplay<StoredMessage> {
  return message.role === "tool" ? withDisplay(message) : message;
}

function withDisplay<T extends { content: string }>(item: T): WithDisplay<T> {
  // Approved labels too (find_tools quoting an MCP server's words): never the markup on a screen.
  return isLabelled(item.content) ? { ...item, display: displayParts(item.content) } : item;
}

/**
 * A text for a person to read (a memory file on the page): its parts with
 * the source of each, or null when it holds no label (all of it is the
 * owner's or hob's).
 *
 * @example
 * ```ts
 * textForPeople("Tea at four."); // null
 * ```
 */
export function textForPeople(text: string): DisplayPart[] | null {
  return isLabelled(text) ? displayParts(text) : null;
}
