/**
 * The channels' hub: drives each configured channel's adapter (port.ts) in a
 * loop that reads, records and answers, once for every platform. It decides
 * who is answered (the owner, guests as untrusted, strangers never, bots and
 * hob itself never), limits replies per sender, keeps one conversation per
 * chat, runs each chat's turns in order, relays approvals to the owner, and
 * watches the loop: a read that does not come back in time is a stall, a
 * failure is retried with back-off, and both show in the channel's state.
 */

import type {
  ChannelActions,
  ChannelName,
  ChannelProbe,
  ChannelState,
  ChatPlace,
} from "../app/channels.ts";
import type { AgentEvent } from "../core/types.ts";
import { ActionError } from "../app/errors.ts";
import { storableText } from "../core/storable.ts";
import { collectReply } from "../core/reply.ts";
import { sleep } from "../core/timeout.ts";
import type { SqliteChannels } from "../store/channels.ts";
import type {
  CarriedText,
  ChannelAdapter,
  ChannelIdentity,
  InboundFile,
  InboundMessage,
} from "./port.ts";
import { turnText } from "./turn_text.ts";

/** How long a read may take beyond the adapter's own poll before it counts as stalled. */
const stallGraceMs = (pollMs: number) => Math.max(2_000, pollMs / 2);
/** How long connecting may take. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Back-off after failures: doubling from the first, up to the last. */
const BACKOFF_MS = [1_000, 60_000] as const;
/** How often the typing indicator is renewed while a turn runs (Telegram's lasts 5 s). */
const TYPING_EVERY_MS = 4_000;
/** How long a sent approval request is shown for in the chat's text (its id prefix). */
const APPROVAL_ID_CHARS = 8;
/** Largest file taken from a message (Telegram's bots can fetch 20 MB). */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

/** Who may talk to hob on a channel, and how much it answers them. */
export interface ChannelPolicy {
  /** The owner's ids: answered, and their words are the owner's. */
  allowFrom: string[];
  /** Others hob answers; what they write is untrusted. */
  guests: string[];
  /** Replies to one sender in any minute, at most. */
  repliesPerMinute: number;
}

/** What the hub works with: the application layer's actions, and where it logs. */
export interface HubDeps {
  channels: ChannelActions;
  store: SqliteChannels;
  /** Starts a turn in a conversation (the app's conversation action). */
  turn(
    input: { message: string; conversation_id: string; attachments?: string[] },
    options: { signal: AbortSignal; tainted?: string },
  ): Promise<AsyncGenerator<AgentEvent>>;
  /** Stores a file that came with a message among the uploads; its home-relative path. */
  saveUpload(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string>;
  /** What a voice note says; absent when no speech-to-text provider is set up. */
  hearVoice?(bytes: Uint8Array, name: string, signal: AbortSignal): Promise<string>;
  /** A reply as a voice note (Ogg/Opus); absent when hob does not answer voice with voice. */
  speakVoice?(text: string, signal: AbortSignal): Promise<Uint8Array>;
  /** Decides a pending approval by id or prefix; the refusal's message when it cannot. */
  decide(id: string, decision: "approve" | "deny"): string;
  /** Sets a conversation's model; what to tell the owner (done, or why not). */
  setModel(conversationId: string, model: string): string;
  /** The model a conversation without its own uses. */
  defaultModel: string;
  /** One line about a channel (connecting, failures, strangers). */
  log(line: string): void;
  now?(): number;
}

/**
 * The hub.
 *
 * @example
 * ```ts
 * const hub = new ChannelHub(deps);
 * hub.add(telegramAdapter, { allowFrom: ["42"], guests: [], repliesPerMinute: 10 });
 * hub.start();
 * hub.states()[0].state; // "starting", then "connected"
 * ```
 */
export class ChannelHub {
  readonly #deps: HubDeps;
  readonly #runners: ChannelRunner[] = [];
  readonly #unstartable = new Map<string, string>();

  constructor(deps: HubDeps) {
    this.#deps = deps;
  }

  add(adapter: ChannelAdapter, policy: ChannelPolicy): void {
    this.#runners.push(new ChannelRunner(adapter, policy, this.#deps));
  }

  /** Notes a channel hob.yaml enables but hob cannot start (its token is not set), and why. */
  cannotStart(name: string, reason: string): void {
    this.#unstartable.set(name, reason);
  }

  /** Starts every channel's loop; they run until {@linkcode stop}. */
  start(): void {
    for (const runner of this.#runners) runner.start();
    // Said when serving starts them, not by every command that opens the home.
    for (const [name, reason] of this.#unstartable) {
      this.#deps.log(`${name}: not started: ${reason}`);
    }
  }

  /** Stops the loops and the turns in progress, and waits for them. */
  async stop(): Promise<void> {
    await Promise.all(this.#runners.map((runner) => runner.stop()));
  }

  states(): ChannelState[] {
    return [
      ...this.#runners.map((runner) => runner.state()),
      ...[...this.#unstartable].map(([name, reason]): ChannelState => ({
        name,
        account: null,
        state: "stopped",
        last_inbound: null,
        last_outbound: null,
        last_error: reason,
        last_error_at: null,
        restarts: 0,
        ignored: 0,
      })),
    ];
  }

  /**
   * Checks each channel once, as `hob doctor` does: its credentials work
   * (the platform says who hob is), and someone is allowed to talk to it.
   */
  async probe(): Promise<ChannelProbe[]> {
    const probes = await Promise.all(this.#runners.map((runner) => runner.probe()));
    return [
      ...probes,
      ...[...this.#unstartable].map(([name, reason]) => ({
        name,
        ok: false,
        warning: false,
        detail: `not started: ${reason}`,
      })),
    ];
  }

  /** Sends the owner a test message on `channel`, as {@linkcode tellOwner} does. */
  sendTest(channel: string): Promise<void> {
    return this.tellOwner(
      channel,
      "hob here: this is the test message you asked for. Write to me here any time.",
    );
  }

  /** The configured channels' names. */
  names(): string[] {
    return this.#runners.map((runner) => runner.name);
  }

  /**
   * Sends `text` to the owner on `channel` (the first of `allow_from`): a
   * test message, a job's result. `not_found` for a channel not configured,
   * `invalid` when it names no owner.
   */
  async tellOwner(channel: string, text: string): Promise<void> {
    const runner = this.#runners.find((each) => each.name === channel);
    const unstartable = this.#unstartable.get(channel);
    if (unstartable) {
      throw new ActionError("invalid", `${channel} is not started: ${unstartable}`, {
        field: "channel",
      });
    }
    if (!runner) {
      throw new ActionError(
        "not_found",
        `The channel '${channel}' is not configured${
          this.#runners.length ? `; there are: ${this.names().join(", ")}` : ""
        }`,
        { field: "channel" },
      );
    }
    await runner.tellOwner(text);
  }
}

/** One channel's loop and its chats. */
class ChannelRunner {
  readonly #adapter: ChannelAdapter;
  readonly #policy: ChannelPolicy;
  readonly #deps: HubDeps;
  readonly #state: ChannelState;
  readonly #stopping = new AbortController();
  /** Each chat's turns, one after another. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Each chat's turn in progress, for `/stop`. */
  readonly #running = new Map<string, AbortController>();
  /** When each sender was last answered, within the last minute. */
  readonly #replies = new Map<string, number[]>();
  #identity: ChannelIdentity | undefined;
  #loop: Promise<void> | undefined;

  constructor(adapter: ChannelAdapter, policy: ChannelPolicy, deps: HubDeps) {
    this.#adapter = adapter;
    this.#policy = policy;
    this.#deps = deps;
    this.#state = {
      name: adapter.name,
      account: null,
      state: "stopped",
      last_inbound: null,
      last_outbound: null,
      last_error: null,
      last_error_at: null,
      restarts: 0,
      ignored: 0,
    };
  }

  get name(): string {
    return this.#adapter.name;
  }

  state(): ChannelState {
    return { ...this.#state };
  }

  start(): void {
    if (this.#loop) return;
    this.#state.state = "starting";
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    for (const turn of this.#running.values()) turn.abort();
    await this.#loop;
    await Promise.allSettled(this.#queues.values());
    this.#state.state = "stopped";
  }

  async probe(): Promise<ChannelProbe> {
    const { name } = this;
    try {
      const me = await this.#adapter.connect(AbortSignal.timeout(CONNECT_TIMEOUT_MS));
      const { allowFrom, guests } = this.#policy;
      return allowFrom.length === 0
        ? {
          name,
          ok: true,
          warning: true,
          detail: `connects as ${me.name}, but allow_from is empty: nobody is answered ` +
            `(write to it, then see 'hob channels pending')`,
        }
        : {
          name,
          ok: true,
          warning: false,
          detail:
            `connects as ${me.name}; answers ${allowFrom.length} owner id(s), ${guests.length} guest(s)`,
        };
    } catch (error) {
      return { name, ok: false, warning: false, detail: (error as Error).message };
    }
  }

  async tellOwner(text: string): Promise<void> {
    const owner = this.#policy.allowFrom[0];
    if (!owner) {
      throw new ActionError("invalid", `${this.name}: allow_from names nobody to send to`, {
        field: "allow_from",
      });
    }
    await this.send(owner, text);
  }

  async send(chatId: string, text: string, replyTo?: string): Promise<void> {
    await this.#adapter.send(chatId, text, { replyTo });
    this.#state.last_outbound = this.#iso();
  }

  async #run(): Promise<void> {
    let failures = 0;
    const stop = this.#stopping.signal;
    while (!stop.aborted) {
      try {
        if (!this.#identity) {
          this.#identity = await this.#within(
            CONNECT_TIMEOUT_MS,
            "connecting",
            (signal) => this.#adapter.connect(signal),
          );
          this.#state.account = this.#identity.name;
          this.#deps.log(`${this.name}: connected as ${this.#identity.name}`);
        }
        this.#state.state = "connected";
        const cursor = this.#deps.store.cursor(this.name);
        const delivery = await this.#within(
          this.#adapter.pollMs + stallGraceMs(this.#adapter.pollMs),
          "reading",
          (signal) => this.#adapter.read(cursor, signal),
        );
        // Each write waits while another program holds hob.db.
        const { store } = this.#deps;
        for (const message of delivery.messages) await store.write(() => this.#accept(message));
        // Recorded first, then the cursor moves: a crash between the two re-reads, never loses.
        if (delivery.cursor !== null) {
          const next = delivery.cursor;
          await store.write(() => store.setCursor(this.name, next));
        }
        failures = 0;
      } catch (error) {
        if (stop.aborted) break;
        failures++;
        this.#identity = undefined;
        this.#state.state = "retrying";
        this.#state.restarts++;
        this.#fail(error);
        const wait = Math.min(BACKOFF_MS[0] * 2 ** (failures - 1), BACKOFF_MS[1]);
        this.#deps.log(`${this.name}: ${this.#state.last_error}; again in ${wait / 1000} s`);
        await sleep(wait, stop);
      }
    }
  }

  /** Runs `work` with a deadline: past it the work is aborted and counted as a stall. */
  async #within<T>(ms: number, doing: string, work: (signal: AbortSignal) => Promise<T>) {
    const attempt = new AbortController();
    const stop = this.#stopping.signal;
    const onStop = () => attempt.abort(stop.reason);
    stop.addEventListener("abort", onStop);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(
          `no answer from ${this.name} in ${Math.round(ms / 1000)} s ${doing}`,
        );
        attempt.abort(error);
        reject(error);
      }, ms);
    });
    try {
      return await Promise.race([work(attempt.signal), stalled]);
    } finally {
      clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    }
  }

  #fail(error: unknown): void {
    this.#state.last_error = error instanceof Error ? error.message : String(error);
    this.#state.last_error_at = this.#iso();
  }

  /** Decides what becomes of a delivered message; a turn is queued behind the chat's others. */
  #accept(delivered: InboundMessage): void {
    const message = storableMessage(delivered);
    const { store, log } = this.#deps;
    const ignore = (why: string) => {
      this.#state.ignored++;
      if (why) log(`${this.name}: ignored a message from ${message.senderId}: ${why}`);
    };
    // hob's own messages and other bots' are never answered: two bots would answer each other forever.
    if (message.senderId === this.#identity?.selfId) return ignore("");
    if (message.fromBot) return ignore("the sender is a bot");
    if (!store.recordInbound(this.name, message.id, message.senderId)) return ignore("");
    this.#state.last_inbound = this.#iso();
    // In a group, only what names hob is for hob: the rest is other people talking.
    if (!message.direct && !this.#mentioned(message)) return ignore("");
    const listed = this.#policy.allowFrom.includes(message.senderId);
    // The owner's words are trusted only when the platform vouches for who sent them.
    const owner = listed && message.verified;
    if (!listed && !this.#policy.guests.includes(message.senderId)) {
      // No answer at all: a stranger learns nothing, not even that hob is here.
      store.recordStranger({
        channel: this.name,
        sender_id: message.senderId,
        name: message.senderName,
        chat_id: message.chatId,
        text: message.text || message.carried[0]?.text || "",
      });
      return ignore("not in allow_from (see 'hob channels pending')");
    }
    if (owner && this.#control(message)) return;
    if (!this.#mayReply(message.senderId)) return ignore("over replies_per_minute");
    const previous = this.#queues.get(message.chatId) ?? Promise.resolve();
    const next = previous.then(() => this.#answer(message, owner)).catch((error) => {
      this.#fail(error);
      log(`${this.name}: answering ${message.chatId}: ${this.#state.last_error}`);
    });
    this.#queues.set(message.chatId, next);
  }

  /** In a group, hob answers only when named. */
  #mentioned(message: InboundMessage): boolean {
    if (message.mentioned !== undefined) return message.mentioned;
    const name = this.#identity?.name;
    return Boolean(name) && message.text.toLowerCase().includes(name!.toLowerCase());
  }

  /**
   * The owner's commands that act at once rather than after the chat's turn in
   * progress: stopping it, and deciding the approval it waits for.
   */
  #control(message: InboundMessage): boolean {
    // The first line: a mail's answer comes before its signature and the quoted request.
    const text = message.text.trim().split("\n")[0].trim();
    if (/^\/stop(@\S+)?$/i.test(text)) {
      const running = this.#running.get(message.chatId);
      running?.abort();
      this.#reply(message, running ? "Stopped." : "Nothing is running.");
      return true;
    }
    const decision = /^(approve|deny)\s+([0-9a-f-]{4,})$/i.exec(text);
    if (decision) {
      const verdict = decision[1].toLowerCase() as "approve" | "deny";
      this.#reply(message, this.#deps.decide(decision[2].toLowerCase(), verdict));
      return true;
    }
    return false;
  }

  #mayReply(sender: string): boolean {
    const now = this.#now();
    const recent = (this.#replies.get(sender) ?? []).filter((at) => now - at < 60_000);
    if (recent.length >= this.#policy.repliesPerMinute) return false;
    recent.push(now);
    this.#replies.set(sender, recent);
    return true;
  }

  /** Runs the message's turn in the chat's conversation and sends the answer. */
  async #answer(message: InboundMessage, owner: boolean): Promise<void> {
    const place: ChatPlace = {
      channel: this.name as ChannelName,
      chatId: message.chatId,
      label: message.senderName || message.chatId,
    };
    const command = /^\/(new|model|status)(?:@\S+)?(?:\s+(.*))?$/is.exec(message.text.trim());
    if (command && owner) return this.#command(message, place, command[1], command[2]?.trim());
    const controller = new AbortController();
    // Hearing a voice note is part of the answer: /stop stops it too.
    this.#running.set(message.chatId, controller);
    try {
      await this.#answerIn(message, owner, place, controller);
    } finally {
      this.#running.delete(message.chatId);
    }
  }

  /** {@linkcode ChannelHub.#answer}'s work, stopped by `controller`. */
  async #answerIn(
    message: InboundMessage,
    owner: boolean,
    place: ChatPlace,
    controller: AbortController,
  ): Promise<void> {
    // A voice note is heard as the sender's words (or its author's, when forwarded); other files
    // are saved among the uploads.
    const { said, heard, files } = await this.#hearVoices(message, controller.signal);
    // Stopped while hearing: /stop has said so already.
    if (controller.signal.aborted) return;
    const { attachments, skipped } = await this.#saveFiles(files);
    const carried = [...message.carried, ...heard];
    if (
      !said && !message.text.trim() && !message.subject?.trim() && attachments.length === 0 &&
      carried.length === 0
    ) {
      return this.#reply(message, skipped || "There was nothing in that message I can read.");
    }
    const own = [
      message.subject?.trim(),
      said,
      message.text.trim() ||
      (message.subject || said || carried.length ? "" : "(sent without a caption)"),
      skipped,
    ].filter(Boolean).join("\n\n");
    const conversation = this.#deps.channels.conversationOf(place);
    const typing = setInterval(() => this.#typing(message.chatId), TYPING_EVERY_MS);
    this.#typing(message.chatId);
    // Anyone but the owner writes untrusted text, and what the owner forwarded, quoted or
    // replied to is its author's: delimited for the model, and the turn is tainted from its
    // start, so side effects need the owner's approval.
    const { message: text, tainted } = turnText({
      channel: this.name,
      owner,
      source: `${this.name}: ${message.senderName} (${message.senderId}${
        message.verified ? "" : ", unverified"
      })`,
      own,
      carried,
    });
    try {
      const events = await this.#deps.turn(
        {
          message: text,
          conversation_id: conversation.id,
          ...(attachments.length ? { attachments } : {}),
        },
        // A stranger's message is not the owner's: it is stored as written from untrusted text.
        // The owner's words stay theirs; the labels of what they passed on taint the turn.
        { signal: controller.signal, ...(tainted && !owner ? { tainted } : {}) },
      );
      const reply = await collectReply(this.#relayApprovals(events, message, owner));
      const answer = reply.content.trim() ||
        (reply.error ? `Sorry, that failed: ${reply.error.message}` : "");
      if (answer) await this.send(message.chatId, answer, message.id);
      if (answer && said && reply.content.trim()) {
        await this.#speak(message, reply.content, controller.signal);
      }
    } finally {
      clearInterval(typing);
    }
  }

  /**
   * What the message's voice notes say — the sender's own, and those they only passed on
   * (heard as their author's) — and its files that are not voice notes (or not heard).
   */
  async #hearVoices(
    message: InboundMessage,
    signal: AbortSignal,
  ): Promise<{ said: string; heard: CarriedText[]; files: InboundFile[] }> {
    const hear = this.#deps.hearVoice;
    if (!hear) return { said: "", heard: [], files: message.files };
    const said: string[] = [];
    const heard: CarriedText[] = [];
    const files: InboundFile[] = [];
    for (const file of message.files) {
      if (!file.voice || (file.size ?? 0) > MAX_FILE_BYTES) {
        files.push(file);
        continue;
      }
      try {
        const bytes = await file.fetch(AbortSignal.timeout(CONNECT_TIMEOUT_MS * 2));
        const text = (await hear(bytes, file.name, signal)).trim() ||
          "(a voice note in which nothing was heard)";
        if (file.from) heard.push({ ...file.from, text });
        else said.push(text);
      } catch (error) {
        if (signal.aborted) break;
        // Not heard: it goes to the turn as a file, whose note says why.
        this.#deps.log(
          `${this.name}: a voice note was not transcribed: ${(error as Error).message}`,
        );
        files.push(file);
      }
    }
    return { said: said.join("\n\n"), heard, files };
  }

  /** Answers a voice note with one, where the platform and hob's speech can; a failure is logged. */
  async #speak(message: InboundMessage, reply: string, signal: AbortSignal): Promise<void> {
    const speak = this.#deps.speakVoice;
    if (!speak || !this.#adapter.sendVoice) return;
    try {
      const audio = await speak(reply, signal);
      await this.#adapter.sendVoice(message.chatId, audio, { replyTo: message.id });
    } catch (error) {
      this.#deps.log(`${this.name}: the reply was not spoken: ${(error as Error).message}`);
    }
  }

  /** Files of a message, saved among the uploads; what could not be taken, said in a line. */
  async #saveFiles(
    messageFiles: InboundFile[],
  ): Promise<{ attachments: string[]; skipped: string }> {
    const attachments: string[] = [];
    const skipped: string[] = [];
    for (const file of messageFiles) {
      if ((file.size ?? 0) > MAX_FILE_BYTES) {
        skipped.push(`${shownName(file)} (over ${MAX_FILE_BYTES / 1024 / 1024} MB)`);
        continue;
      }
      try {
        const bytes = await file.fetch(AbortSignal.timeout(CONNECT_TIMEOUT_MS * 2));
        attachments.push(await this.#deps.saveUpload(file.name, bytes));
      } catch (error) {
        this.#fail(error);
        skipped.push(`${shownName(file)} (${(error as Error).message})`);
      }
    }
    return {
      attachments,
      skipped: skipped.length ? `[Files that could not be fetched: ${skipped.join(", ")}]` : "",
    };
  }

  /** `/new`, `/model [ID]` and `/status`, the owner's commands that run in the chat's turn. */
  #command(message: InboundMessage, place: ChatPlace, name: string, argument?: string): void {
    const { channels } = this.#deps;
    if (name === "new") {
      channels.startOver(place);
      return this.#reply(message, "Started a new conversation.");
    }
    const conversation = channels.conversationOf(place);
    if (name === "model") {
      const answer = argument
        ? this.#deps.setModel(conversation.id, argument)
        : `This conversation uses ${conversation.model ?? this.#deps.defaultModel}.`;
      return this.#reply(message, answer);
    }
    const states = [`${this.name}: ${this.#state.state}`];
    this.#reply(
      message,
      `Conversation “${conversation.title}” · model ${
        conversation.model ?? this.#deps.defaultModel
      } · ${states.join(", ")}`,
    );
  }

  /**
   * Passes a turn's events on, asking the owner when a tool waits for
   * approval: in the chat when the owner wrote, else in the owner's own chat
   * with hob (a guest cannot approve; the page shows it too).
   */
  async *#relayApprovals(
    events: AsyncIterable<AgentEvent>,
    message: InboundMessage,
    owner: boolean,
  ): AsyncGenerator<AgentEvent> {
    const ownerChat = owner ? message.chatId : this.#policy.allowFrom[0];
    for await (const event of events) {
      if (event.type === "approval_required" && ownerChat) {
        const id = event.approval_id.slice(0, APPROVAL_ID_CHARS);
        const asker = owner ? "" : ` (asked by ${message.senderName}, a guest)`;
        await this.#adapter.send(
          ownerChat,
          `hob wants to run \`${event.name}\`${asker}: ${event.reason}\n\n` +
            `Reply \`approve ${id}\` or \`deny ${id}\`.`,
          {
            replyTo: owner ? message.id : undefined,
            choices: [
              { label: "Approve", reply: `approve ${id}` },
              { label: "Deny", reply: `deny ${id}` },
            ],
          },
        ).then(() => this.#state.last_outbound = this.#iso(), (error) => this.#fail(error));
      }
      yield event;
    }
  }

  #reply(message: InboundMessage, text: string): void {
    this.send(message.chatId, text, message.id).catch((error) => this.#fail(error));
  }

  #typing(chatId: string): void {
    this.#adapter.typing(chatId).catch(() => {/* only a courtesy */});
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  #iso(): string {
    return new Date(this.#now()).toISOString();
  }
}

/** A file's name for the sender's own words: a passed-on file's name is its author's, so not said. */
function shownName(file: InboundFile): string {
  return file.from ? `a file ${file.from.kind} (its name is not shown)` : file.name;
}

/**
 * The message with every text in it storable: a NUL or half a character,
 * which a platform may deliver and hob.db cannot hold, is shown as U+FFFD and
 * the rest arrives whole (a channel's message cannot be refused as a
 * request's can).
 */
function storableMessage(message: InboundMessage): InboundMessage {
  return {
    ...message,
    senderName: storableText(message.senderName),
    text: storableText(message.text),
    ...(message.subject === undefined ? {} : { subject: storableText(message.subject) }),
    carried: message.carried.map((item) => ({
      ...item,
      author: storableText(item.author),
      text: storableText(item.text),
    })),
  };
}
