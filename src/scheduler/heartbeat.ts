/**
 * The heartbeat: every `interval` (within active hours) hob reads
 * identity/HEARTBEAT.md to the agent. `HEARTBEAT_OK` means nothing needed
 * doing and nothing is logged; any other answer goes to today's log and to a
 * notification. Each tick is a fresh conversation, so tick 100 costs what
 * tick 1 did. Its state lives in SQLite, so it survives errors and restarts.
 */

import type { TurnInput } from "../core/agent.ts";
import type { WrittenFrom } from "../core/ports.ts";
import { collectReply } from "../core/reply.ts";
import { derivedText } from "../core/untrusted.ts";
import type { AgentEvent, Conversation, ConversationKind } from "../core/types.ts";
import { onMinute } from "./clock.ts";
import { defaultTimezone, zonedParts } from "./zones.ts";

/** The words the agent is given, as the seed has them. */
export const HEARTBEAT_PROMPT = "HEARTBEAT CHECK. Review this checklist and take action if needed.";
/** The answer that means nothing needed doing. */
export const HEARTBEAT_OK = "HEARTBEAT_OK";

/** How a tick ended. */
export type TickStatus =
  | "ok"
  | "reported"
  | "error"
  | "outside_hours"
  | "empty_checklist"
  /** A budget would be exceeded: not run; `error` says which. */
  | "paused";

/** What the heartbeat remembers between ticks and restarts. */
export interface HeartbeatState {
  last_tick: string | null;
  last_status: TickStatus | null;
  last_error: string | null;
  last_reply: string | null;
  last_conversation_id: string | null;
  next_tick: string | null;
  ticks: number;
  failures: number;
}

/** One tick's outcome. */
export interface TickResult {
  status: TickStatus;
  reply: string;
  conversation_id: string | null;
  error?: string;
}

/** Hours of the day (in `timezone`) the heartbeat runs in; may wrap midnight. */
export interface ActiveHours {
  start: number; // minutes after midnight
  end: number;
}

/** The heartbeat's settings. */
export interface HeartbeatSettings {
  intervalMs: number;
  activeHours: ActiveHours | null;
  /** The zone the active hours are in; the machine's when unset. */
  timezone?: string;
  model: string | null;
  /**
   * Heartbeat conversations kept for reading; older ones are deleted.
   * @default {48}
   */
  keepConversations?: number;
  /**
   * Delay of the first tick after a fresh start.
   * @default {60_000}
   */
  firstDelayMs?: number;
}

/** What the heartbeat uses of the runtime. */
export interface HeartbeatDeps {
  turn(input: TurnInput): AsyncGenerator<AgentEvent>;
  conversations: {
    createConversation(
      init: { title: string; model: string | null; kind: ConversationKind },
    ): Conversation;
    listConversations(
      options: { kind: ConversationKind; limit: number; offset: number },
    ): { id: string }[];
    deleteConversation(id: string): boolean;
  };
  /** The checklist, identity/HEARTBEAT.md; empty when there is none. */
  checklist(): Promise<string>;
  logNote(text: string, heading: string, from: WrittenFrom): Promise<unknown>;
  notify(notification: { kind: string; title: string; body: string }): void;
  loadState(): HeartbeatState | undefined;
  /** Saves the state; a promise when the write may wait (another program holding hob.db). */
  saveState(state: HeartbeatState): void | Promise<void>;
  now?: () => Date;
  /** Dollars a conversation's model calls cost, to say after the first tick what ticks cost. */
  costOf?(conversationId: string): number;
  /** Why a tick must not run now (a budget), or null; `state` is the heartbeat's so far. */
  admit?(state: HeartbeatState): string | null;
  /**
   * Arm the timer and the minute tick (off in tests that tick by hand).
   * @default {true}
   */
  timers?: boolean;
}

const EMPTY_STATE: HeartbeatState = {
  last_tick: null,
  last_status: null,
  last_error: null,
  last_reply: null,
  last_conversation_id: null,
  next_tick: null,
  ticks: 0,
  failures: 0,
};
/** Longest reply kept in the state. */
const REPLY_CHARS = 2_000;

/**
 * Parses `"08:00-22:00"`.
 *
 * @example
 * ```ts
 * parseActiveHours("22:00-06:00"); // { start: 1320, end: 360 }: through the night
 * ```
 */
export function parseActiveHours(text: string): ActiveHours {
  const match = /^(\d{1,2}):(\d\d)\s*-\s*(\d{1,2}):(\d\d)$/.exec(text.trim());
  const minutes = (h: string, m: string) => Number(h) * 60 + Number(m);
  if (
    !match || Number(match[1]) > 24 || Number(match[3]) > 24 || Number(match[2]) > 59 ||
    Number(match[4]) > 59
  ) {
    throw new Error(`'${text}' is not a range of hours: write it as 08:00-22:00`);
  }
  return { start: minutes(match[1], match[2]), end: minutes(match[3], match[4]) };
}

/** Whether `at` falls within the active hours, read in `timezone` (the machine's when unset). */
export function withinActiveHours(
  at: Date,
  hours: ActiveHours | null,
  timezone: string | undefined,
): boolean {
  if (!hours || hours.start === hours.end) return true;
  const shown = zonedParts(at, timezone ?? defaultTimezone());
  const minute = shown.h * 60 + shown.mi;
  return hours.start < hours.end
    ? minute >= hours.start && minute < hours.end
    : minute >= hours.start || minute < hours.end;
}

/**
 * The checklist's checks: the text without HTML comments, or "" when what is
 * left is only headings and blank lines (a new home's template).
 *
 * @example
 * ```ts
 * activeChecklist("# Heartbeat\n<!-- - Is the backup fresh? -->\n"); // ""
 * ```
 */
export function activeChecklist(text: string): string {
  const uncommented = text.replace(/<!--[\s\S]*?(-->|$)/g, "").trim();
  const checks = uncommented.split("\n").filter((line) => line.trim() && !/^\s*#/.test(line));
  return checks.length ? uncommented : "";
}

/** How many ticks a day brings at `intervalMs`, within the active hours. */
export function ticksPerDay(intervalMs: number, hours: ActiveHours | null): number {
  const minutes = !hours || hours.start === hours.end
    ? 24 * 60
    : (hours.end - hours.start + 24 * 60) % (24 * 60);
  return Math.max(1, Math.floor(minutes * 60_000 / intervalMs));
}

/**
 * The heartbeat of one runtime.
 *
 * @example
 * ```ts
 * const heartbeat = new Heartbeat(settings, deps);
 * heartbeat.start();
 * ```
 */
export class Heartbeat {
  readonly #settings: HeartbeatSettings;
  readonly #deps: HeartbeatDeps;
  readonly #now: () => Date;
  readonly #stop = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unsubscribe: (() => void) | undefined;
  #running: Promise<TickResult> | undefined;

  constructor(settings: HeartbeatSettings, deps: HeartbeatDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** What the heartbeat remembers: last tick, next tick, failures. */
  state(): HeartbeatState {
    return { ...EMPTY_STATE, ...this.#deps.loadState() };
  }

  /**
   * Starts ticking: the next tick is one interval after the last one (which
   * may have been before a restart), or a minute after a first start.
   */
  start(): void {
    const state = this.state();
    const now = this.#now().getTime();
    const next = state.last_tick
      ? Math.max(new Date(state.last_tick).getTime() + this.#settings.intervalMs, now)
      : now + (this.#settings.firstDelayMs ?? 60_000);
    this.#save({ ...state, next_tick: new Date(next).toISOString() });
    if (this.#deps.timers ?? true) {
      this.#unsubscribe = onMinute(() => void this.#dueCheck());
      this.#arm();
    }
  }

  /** Ticks if the next tick is due (the timers call this). */
  async #dueCheck(): Promise<void> {
    const next = this.state().next_tick;
    if (this.#stop.signal.aborted || this.#running || !next) return;
    if (new Date(next).getTime() <= this.#now().getTime()) await this.tick();
    this.#arm();
  }

  #arm(): void {
    if (this.#stop.signal.aborted || !(this.#deps.timers ?? true)) return;
    clearTimeout(this.#timer);
    const next = this.state().next_tick;
    if (!next) return;
    const delay = Math.min(60_000, Math.max(0, new Date(next).getTime() - this.#now().getTime()));
    this.#timer = setTimeout(() => void this.#dueCheck(), delay);
    Deno.unrefTimer(this.#timer as unknown as number);
  }

  /** Runs one tick now. Never throws: a failing tick is recorded and the next one comes as planned. */
  tick(): Promise<TickResult> {
    if (this.#running) return this.#running;
    this.#running = this.#tick().finally(() => this.#running = undefined);
    return this.#running;
  }

  async #tick(): Promise<TickResult> {
    const started = this.#now();
    const state = this.state();
    const next = new Date(started.getTime() + this.#settings.intervalMs).toISOString();
    const save = async (result: TickResult): Promise<TickResult> => {
      const counted = result.status !== "outside_hours" && result.status !== "empty_checklist" &&
        result.status !== "paused";
      await this.#save({
        ...state,
        next_tick: next,
        ...(counted
          ? {
            last_tick: started.toISOString(),
            last_status: result.status,
            last_error: result.error ?? null,
            last_reply: result.reply.slice(0, REPLY_CHARS),
            last_conversation_id: result.conversation_id,
            ticks: state.ticks + 1,
            failures: result.status === "error" ? state.failures + 1 : state.failures,
          }
          : { last_status: result.status, ...(result.error ? { last_error: result.error } : {}) }),
      });
      return result;
    };

    if (!withinActiveHours(started, this.#settings.activeHours, this.#settings.timezone)) {
      return save({ status: "outside_hours", reply: "", conversation_id: null });
    }
    const refused = this.#deps.admit?.(state) ?? null;
    if (refused) {
      return save({ status: "paused", reply: "", conversation_id: null, error: refused });
    }
    let conversationId: string | null = null;
    try {
      // Only headings and comments (a new home's template): nothing to check, nothing spent.
      const checklist = activeChecklist(await this.#deps.checklist());
      if (!checklist) return save({ status: "empty_checklist", reply: "", conversation_id: null });
      const conversation = this.#deps.conversations.createConversation({
        title: `Heartbeat ${started.toISOString().slice(0, 16).replace("T", " ")}`,
        model: this.#settings.model,
        kind: "heartbeat",
      });
      conversationId = conversation.id;
      const reply = await collectReply(this.#deps.turn({
        message: `${HEARTBEAT_PROMPT}\n\n${checklist}`,
        conversation_id: conversation.id,
        model: this.#settings.model ?? undefined,
        signal: this.#stop.signal,
      }));
      this.#prune();
      if (state.ticks === 0) this.#sayCost(conversation.id);
      if (reply.error && !reply.content.trim()) {
        return save({
          status: "error",
          reply: "",
          conversation_id: conversationId,
          error: reply.error.message,
        });
      }
      const text = reply.content.trim();
      if (text.includes(HEARTBEAT_OK)) {
        return save({ status: "ok", reply: text, conversation_id: conversationId });
      }
      // A report from a turn that read untrusted content keeps its label in the log.
      await this.#deps.logNote(
        reply.taint ? derivedText(text, reply.taint, "the heartbeat's report") : text,
        "Heartbeat",
        { conversation_id: conversationId, taint: reply.taint },
      );
      this.#deps.notify({ kind: "heartbeat", title: "Heartbeat", body: text });
      return save({ status: "reported", reply: text, conversation_id: conversationId });
    } catch (error) {
      const message = (error as Error).message;
      console.error(`hob: heartbeat tick failed: ${message}`);
      return save({ status: "error", reply: "", conversation_id: conversationId, error: message });
    }
  }

  /** After the first tick: what it cost, what a day of ticks will, and how to change it. */
  #sayCost(conversationId: string): void {
    const cost = this.#deps.costOf?.(conversationId);
    // A local model's ticks cost nothing: nothing to say.
    if (!cost) return;
    const perDay = ticksPerDay(this.#settings.intervalMs, this.#settings.activeHours);
    const model = this.#settings.model ? ` on ${this.#settings.model}` : "";
    const body = `The first heartbeat check cost $${cost.toFixed(4)}${model}. At ${
      Math.round(this.#settings.intervalMs / 60_000)
    }-minute intervals that is ${perDay} checks and about $${
      (cost * perDay).toFixed(2)
    } a day. Set heartbeat.interval_minutes, heartbeat.model or heartbeat.active_hours to change it; a HEARTBEAT.md with no checks costs nothing.`;
    console.error(`hob: ${body}`);
    this.#deps.notify({ kind: "heartbeat", title: "What the heartbeat costs", body });
  }

  /** Saves the state; a failure is logged, never thrown: the next tick saves again. */
  async #save(state: HeartbeatState): Promise<void> {
    try {
      await this.#deps.saveState(state);
    } catch (error) {
      console.error(`hob: the heartbeat's state could not be saved: ${(error as Error).message}`);
    }
  }

  /** Deletes heartbeat conversations beyond the newest `keepConversations`. */
  #prune(): void {
    const keep = this.#settings.keepConversations ?? 48;
    for (
      const old of this.#deps.conversations.listConversations({
        kind: "heartbeat",
        limit: 500,
        offset: keep,
      })
    ) {
      this.#deps.conversations.deleteConversation(old.id);
    }
  }

  /** Stops ticking; a tick in progress is interrupted. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
    await this.#running;
  }
}
