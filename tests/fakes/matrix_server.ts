/**
 * A stand-in Matrix homeserver on 127.0.0.1, for the client-server API
 * endpoints hob calls through matrix-js-sdk: `whoami`, `/sync` (long polling
 * from `since`, rooms with their member counts, invitations), `send`,
 * `typing`, `join` and reading one event (`/rooms/{room}/event/{id}`). Tests put events in rooms and read what hob sent.
 */

import { until } from "../helpers/until.ts";

/** An event a test puts in a room. */
export interface PushedEvent {
  sender: string;
  body: string;
  /** The thread it is in (its root event's id). */
  thread?: string;
  /** Ids it mentions the newer way (`m.mentions`). */
  mentions?: string[];
  msgtype?: string;
  /**
   * More of the event's content, as a client sends it (`m.relates_to` with
   * `m.in_reply_to` or `m.replace`, `m.new_content`…); it wins over the above.
   */
  content?: Record<string, unknown>;
}

/** What hob sent to a room. */
export interface SentEvent {
  room: string;
  content: Record<string, unknown>;
  at: number;
  /** The id the homeserver gave it. */
  event_id: string;
}

/** The stand-in. `await using` closes it. */
export interface FakeMatrix extends AsyncDisposable {
  url: string;
  token: string;
  userId: string;
  /** Messages hob sent, in order. */
  sent: SentEvent[];
  /** Rooms hob joined on an invitation. */
  joined: string[];
  /** Typing notices hob sent. */
  typing: string[];
  /** Makes a room with `members` people (hob among them). */
  room(roomId: string, members: number): void;
  /** Puts a message in a room; returns its event id. */
  push(roomId: string, event: PushedEvent): string;
  /** Invites hob into a new room. */
  invite(roomId: string, inviter: string): void;
  sentTo(roomId: string): SentEvent[];
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/**
 * Starts the stand-in.
 *
 * @example
 * ```ts
 * await using matrix = startFakeMatrix();
 * matrix.room("!dm:test", 2);
 * matrix.push("!dm:test", { sender: "@ada:test", body: "hi" });
 * ```
 */
export function startFakeMatrix(): FakeMatrix {
  const token = "syt_test_token";
  const userId = "@hob:test";
  /** Everything that happened, numbered: `/sync` gives what came after `since`. */
  const timeline: { seq: number; room: string; event?: unknown; inviter?: string }[] = [];
  let seq = 0;
  const members = new Map<string, number>();
  const sent: SentEvent[] = [];
  const ownEvents = new Map<string, Record<string, unknown>>();
  const joined: string[] = [];
  const typing: string[] = [];
  const waiters = new Set<() => void>();
  let nextEvent = 1;
  const wake = () => [...waiters].forEach((waiter) => waiter());

  const json = (body: unknown, status = 200) => Response.json(body, { status });
  const error = (status: number, errcode: string, message: string) =>
    json({ errcode, error: message }, status);

  async function sync(url: URL): Promise<Response> {
    const sinceText = url.searchParams.get("since");
    const since = sinceText === null ? seq : Number(sinceText);
    const deadline = Date.now() + Number(url.searchParams.get("timeout") ?? 0);
    while (seq <= since && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        waiters.add(done);
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
      });
    }
    const join: Record<string, { summary: unknown; timeline: { events: unknown[] } }> = {};
    const invite: Record<string, unknown> = {};
    for (const item of timeline.filter((item) => item.seq > since)) {
      if (item.inviter) {
        invite[item.room] = {
          invite_state: {
            events: [{
              type: "m.room.member",
              sender: item.inviter,
              state_key: userId,
              content: { membership: "invite" },
            }],
          },
        };
        continue;
      }
      (join[item.room] ??= {
        summary: { "m.joined_member_count": members.get(item.room) ?? 2 },
        timeline: { events: [] },
      }).timeline.events.push(item.event);
    }
    return json({ next_batch: String(seq), rooms: { join, invite } });
  }

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${token}`) {
        return error(401, "M_UNKNOWN_TOKEN", "Invalid access token");
      }
      const path = url.pathname.replace(/^\/_matrix\/client\/v3/, "");
      const body = request.method === "GET" ? {} : await request.json().catch(() => ({}));
      if (path === "/account/whoami") return json({ user_id: userId });
      if (path === "/sync") return await sync(url);
      const sending = /^\/rooms\/([^/]+)\/send\/m\.room\.message\/[^/]+$/.exec(path);
      if (sending && request.method === "PUT") {
        const room = decodeURIComponent(sending[1]);
        const event_id = `$hob${nextEvent++}`;
        sent.push({ room, content: body, at: performance.now(), event_id });
        // Readable like any event (a reply to it reads it), though /sync leaves hob's own out.
        ownEvents.set(event_id, {
          type: "m.room.message",
          event_id,
          sender: userId,
          content: body,
          room_id: room,
        });
        return json({ event_id });
      }
      const reading = /^\/rooms\/([^/]+)\/event\/([^/]+)$/.exec(path);
      if (reading && request.method === "GET") {
        const [room, id] = [decodeURIComponent(reading[1]), decodeURIComponent(reading[2])];
        const found = timeline.find((item) =>
          item.room === room && (item.event as { event_id?: string } | undefined)?.event_id === id
        );
        if (found) return json({ ...found.event as Record<string, unknown>, room_id: room });
        const own = ownEvents.get(id);
        return own?.room_id === room ? json(own) : error(404, "M_NOT_FOUND", "Event not found");
      }
      const typed = /^\/rooms\/([^/]+)\/typing\/[^/]+$/.exec(path);
      if (typed) {
        typing.push(decodeURIComponent(typed[1]));
        return json({});
      }
      const joining = /^\/join\/([^/]+)$/.exec(path);
      if (joining) {
        const room = decodeURIComponent(joining[1]);
        joined.push(room);
        members.set(room, members.get(room) ?? 2);
        return json({ room_id: room });
      }
      return error(404, "M_UNRECOGNIZED", `Unrecognized request ${request.method} ${path}`);
    },
  );
  const { port } = server.addr as Deno.NetAddr;

  const fake: FakeMatrix = {
    url: `http://127.0.0.1:${port}`,
    token,
    userId,
    sent,
    joined,
    typing,
    room(roomId, count) {
      members.set(roomId, count);
    },
    push(roomId, event) {
      const id = `$event${nextEvent++}`;
      const relates = event.thread ? { rel_type: "m.thread", event_id: event.thread } : undefined;
      timeline.push({
        seq: ++seq,
        room: roomId,
        event: {
          type: "m.room.message",
          event_id: id,
          sender: event.sender,
          origin_server_ts: Date.now(),
          content: {
            msgtype: event.msgtype ?? "m.text",
            body: event.body,
            ...(event.mentions ? { "m.mentions": { user_ids: event.mentions } } : {}),
            ...(relates ? { "m.relates_to": relates } : {}),
            ...event.content,
          },
        },
      });
      wake();
      return id;
    },
    invite(roomId, inviter) {
      timeline.push({ seq: ++seq, room: roomId, inviter });
      wake();
    },
    sentTo(roomId) {
      return sent.filter((event) => event.room === roomId);
    },
    until: (check, what, timeoutMs) => until(check, what, timeoutMs),
    async [Symbol.asyncDispose]() {
      wake();
      await server.shutdown();
    },
  };
  return fake;
}
