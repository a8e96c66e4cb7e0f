/**
 * Matrix, through the client-server API with matrix-js-sdk's HTTP client:
 * `/sync` long polling from the stored `next_batch` (a first start answers no
 * history), messages in rooms hob has joined, invitations from those it may
 * answer joined, replies in the thread a message was in, and the typing
 * notice. In a room with others, hob answers only when it is mentioned. A
 * reply is read without its fallback quote, and the event it answers is read
 * from the homeserver as its sender's words; edits are not answered
 * (matrix_carried.ts).
 */

import type { ICreateClientOpts, MatrixClient } from "matrix-js-sdk";
import {
  answeredText,
  isEdit,
  type MatrixWords,
  matrixWords,
  type MessageContent,
} from "./matrix_carried.ts";
import type { CarriedText, ChannelAdapter, Delivery, InboundMessage, SendOptions } from "./port.ts";

/** What the Matrix adapter is configured with. */
export interface MatrixOptions {
  homeserver: string;
  /** hob's own user id, `@hob:example.org`. */
  userId: string;
  accessToken: string;
  /** Who may invite hob into a room (the same ids it answers). */
  mayInvite: (userId: string) => boolean;
  /** Whom hob answers (owners and guests): the events their replies answer are read. */
  answers: (userId: string) => boolean;
  pollMs: number;
}

/** A logger that says nothing. */
const QUIET: NonNullable<ICreateClientOpts["logger"]> = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  getChild: () => QUIET,
};

/** A room event of `/sync`, as far as hob reads it. */
interface RoomEvent {
  type: string;
  event_id: string;
  sender: string;
  content: MessageContent;
}

/** The part of a `/sync` answer hob reads. */
interface SyncAnswer {
  next_batch: string;
  rooms?: {
    join?: Record<string, {
      summary?: { "m.joined_member_count"?: number };
      timeline?: { events?: RoomEvent[] };
    }>;
    invite?: Record<string, { invite_state?: { events?: RoomEvent[] } }>;
  };
}

/**
 * The Matrix adapter.
 *
 * @example
 * ```ts
 * const matrix = createMatrixAdapter({ homeserver, userId: "@hob:example.org", accessToken, mayInvite, pollMs: 30_000 });
 * ```
 */
export function createMatrixAdapter(options: MatrixOptions): ChannelAdapter {
  let client:
    | Promise<{ client: MatrixClient; Method: typeof import("matrix-js-sdk").Method }>
    | undefined;
  // matrix-js-sdk loads when the channel starts, not with hob.
  const sdk = () =>
    client ??= import("matrix-js-sdk").then(({ createClient, Method }) => ({
      client: createClient({
        baseUrl: options.homeserver,
        accessToken: options.accessToken,
        userId: options.userId,
        // The SDK logs every request; the hub says what matters (failures, strangers).
        logger: QUIET,
      }),
      Method,
    }));
  /** Members seen per room: a room of two is a direct chat. */
  const members = new Map<string, number>();
  /** The thread each message was in, to answer in it. */
  const threads = new Map<string, string>();

  return {
    name: "matrix",
    pollMs: options.pollMs,
    async connect(signal) {
      const { client, Method } = await sdk();
      const me = await client.http.authedRequest<{ user_id: string }>(
        Method.Get,
        "/account/whoami",
        undefined,
        undefined,
        { abortSignal: signal },
      );
      return { selfId: me.user_id, name: me.user_id };
    },
    async read(cursor, signal): Promise<Delivery> {
      const { client, Method } = await sdk();
      const answer = await client.http.authedRequest<SyncAnswer>(
        Method.Get,
        "/sync",
        {
          // A first start only learns where now is: history is not answered.
          ...(cursor ? { since: cursor, timeout: String(options.pollMs) } : { timeout: "0" }),
          filter: JSON.stringify({ room: { timeline: { limit: 50 } }, presence: { types: [] } }),
        },
        undefined,
        { abortSignal: signal, localTimeoutMs: options.pollMs + 10_000 },
      );
      if (!cursor) return { messages: [], cursor: answer.next_batch };
      for (const roomId of invitedBy(answer, options)) {
        await client.http.authedRequest(
          Method.Post,
          `/join/${encodeURIComponent(roomId)}`,
          undefined,
          {},
        );
      }
      const http = { client, Method };
      const messages: InboundMessage[] = [];
      for (const [roomId, room] of Object.entries(answer.rooms?.join ?? {})) {
        const count = room.summary?.["m.joined_member_count"];
        if (count !== undefined) members.set(roomId, count);
        const direct = (members.get(roomId) ?? 2) <= 2;
        for (const event of room.timeline?.events ?? []) {
          const message = await roomMessage(http, roomId, event, direct, options, signal);
          if (!message) continue;
          const thread = event.content["m.relates_to"];
          if (thread?.rel_type === "m.thread" && thread.event_id) {
            threads.set(event.event_id, thread.event_id);
          }
          messages.push(message);
        }
      }
      return { messages, cursor: answer.next_batch };
    },
    async send(roomId, text, sendOptions: SendOptions = {}) {
      const { client, Method } = await sdk();
      const replyTo = sendOptions.replyTo;
      await client.http.authedRequest(
        Method.Put,
        `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${crypto.randomUUID()}`,
        undefined,
        {
          msgtype: "m.text",
          body: text,
          ...(replyTo ? relation(replyTo, threads.get(replyTo)) : {}),
        },
      );
    },
    async typing(roomId) {
      const { client, Method } = await sdk();
      await client.http.authedRequest(
        Method.Put,
        `/rooms/${encodeURIComponent(roomId)}/typing/${encodeURIComponent(options.userId)}`,
        undefined,
        { typing: true, timeout: 5_000 },
      );
    },
  };
}

/** The rooms someone who may invite hob invited it into. */
function invitedBy(answer: SyncAnswer, options: MatrixOptions): string[] {
  return Object.entries(answer.rooms?.invite ?? {}).filter(([, invite]) => {
    const inviter = invite.invite_state?.events?.find((event) =>
      event.type === "m.room.member" && event.sender !== options.userId
    )?.sender;
    return inviter !== undefined && options.mayInvite(inviter);
  }).map(([roomId]) => roomId);
}

/** A reply's relation: in the thread the message was in, else a plain reply to it. */
function relation(replyTo: string, thread: string | undefined): Record<string, unknown> {
  return {
    "m.relates_to": thread
      ? {
        rel_type: "m.thread",
        event_id: thread,
        is_falling_back: true,
        "m.in_reply_to": { event_id: replyTo },
      }
      : { "m.in_reply_to": { event_id: replyTo } },
  };
}

/** matrix-js-sdk's HTTP client, and its request methods. */
interface Http {
  client: MatrixClient;
  Method: typeof import("matrix-js-sdk").Method;
}

/**
 * A room event as a message for the hub, with the event it answers read as
 * its sender's (for those hob answers); null for what is not a new message.
 */
async function roomMessage(
  http: Http,
  roomId: string,
  event: RoomEvent,
  direct: boolean,
  options: MatrixOptions,
  signal: AbortSignal,
): Promise<InboundMessage | null> {
  const words = wordsOf(event);
  if (!words) return null;
  const message = inbound(roomId, event, words, direct, options);
  if (words.replyTo && options.answers(event.sender)) {
    const where = { roomId, sender: event.sender, self: options.userId };
    const answered = await repliedTo(http, where, words, signal);
    if (answered) message.carried.unshift(answered);
  }
  return message;
}

/** A room message's words; null for any other event, and for an edit (answered once, as sent). */
function wordsOf(event: RoomEvent): MatrixWords | null {
  if (event.type !== "m.room.message" || typeof event.content.body !== "string") return null;
  if (isEdit(event.content)) return null;
  return matrixWords(event.content);
}

/** A room message as a message for the hub. */
function inbound(
  roomId: string,
  event: RoomEvent,
  words: MatrixWords,
  direct: boolean,
  options: MatrixOptions,
): InboundMessage {
  return {
    id: event.event_id,
    chatId: roomId,
    senderId: event.sender,
    senderName: event.sender,
    // Without the reply fallback and the quotes: those are their authors' words.
    text: words.text,
    carried: words.carried,
    // Clients say whom a message mentions; older ones only write the name in the text.
    mentioned: event.content["m.mentions"]?.user_ids?.includes(options.userId) ||
      words.text.includes(options.userId),
    files: [],
    // The homeserver vouches for the sender of every event it serves.
    verified: true,
    fromBot: event.content.msgtype === "m.notice",
    direct,
  };
}

/**
 * The event a reply answers, as its sender's words: read from the homeserver
 * (which vouches for its sender), or, when it cannot be read, the fallback
 * the reply quoted. Null when it is hob's own (already in the conversation)
 * or the sender's own.
 */
async function repliedTo(
  { client, Method }: Http,
  { roomId, sender, self }: { roomId: string; sender: string; self: string },
  words: MatrixWords,
  signal: AbortSignal,
): Promise<CarriedText | null> {
  try {
    const answered = await client.http.authedRequest<RoomEvent>(
      Method.Get,
      `/rooms/${encodeURIComponent(roomId)}/event/${encodeURIComponent(words.replyTo!)}`,
      undefined,
      undefined,
      { abortSignal: signal },
    );
    if (answered.sender === self || answered.sender === sender) return null;
    const text = answeredText(answered.content ?? {});
    return text.trim() ? { kind: "replied", author: answered.sender, text } : null;
  } catch (error) {
    if (signal.aborted) throw error;
    return words.fallback
      ? { kind: "replied", author: "someone (as the reply quotes them)", text: words.fallback }
      : null;
  }
}
