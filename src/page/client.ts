/**
 * hob's client for user scripts, served as `GET /client.ts`: chat (whole or
 * streamed), conversations, memory, schedules, tasks, tools, approvals and
 * status over the REST API. A script imports it from the running hob and
 * needs only `--allow-net` and `--allow-import` for hob's address:
 *
 * ```sh
 * deno run --allow-net=127.0.0.1:8484 --allow-import=127.0.0.1:8484 script.ts --token "$(cat ~/.hob/token)"
 * ```
 *
 * It must not import anything — not hob's own files, not a package — because
 * the script's sandbox lets it fetch this one file and nothing else. Its types
 * copy the server's; tests/e2e/client_test.ts fails to type-check when they drift.
 */

// --- What hob sends ---------------------------------------------------------

/** Token counts of a turn. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

/** How a turn ended. */
export type TurnStatus =
  | "complete"
  | "interrupted"
  | "error"
  | "max_iterations"
  /** The model called tools the caller supplied (hob's OpenAI-compatible API), not hob's. */
  | "tool_calls";

/**
 * One event of a streamed turn, named by `type`: `start` first, `done` last,
 * text and tool activity between.
 */
export type ChatEvent =
  | { type: "start"; conversation_id: string; user_message_id: number; model: string }
  | { type: "text"; text: string }
  | { type: "tool_call"; message_id: number; id: string; name: string; arguments: string }
  | {
    type: "tool_result";
    message_id: number;
    tool_call_id: string;
    name: string;
    content: string;
    is_error: boolean;
    duration_ms: number;
    /** When `content` holds outside text: it in parts, each with its source, for showing people. */
    display?: { text: string; source: string | null }[];
  }
  | {
    /** A tool call waits for a decision: `hob.approvals.decide(approval_id, "approve")`. */
    type: "approval_required";
    approval_id: string;
    tool_call_id: string;
    name: string;
    arguments: string;
    reason: string;
    expires_at: string;
  }
  | {
    type: "approval_resolved";
    approval_id: string;
    status: "approved" | "denied" | "expired" | "pending";
  }
  /** `repeat`: a taint the conversation had already, told to people on the turn that first read it. */
  | { type: "notice"; code: string; message: string; source?: string; repeat?: true }
  | { type: "error"; code: string; message: string }
  | { type: "title"; conversation_id: string; title: string }
  | {
    type: "done";
    conversation_id: string;
    status: TurnStatus;
    message_id: number | null;
    message_ids: number[];
    usage: Usage;
  };

/** A whole turn as one object: what {@linkcode HobClient.chat} returns. */
export interface ChatReply {
  conversation_id: string;
  user_message_id: number;
  message_id: number | null;
  model: string;
  status: TurnStatus;
  /** The final answer's text. */
  content: string;
  tool_calls: {
    id: string;
    name: string;
    arguments: string;
    result: string | null;
    is_error: boolean;
    duration_ms: number | null;
  }[];
  notices: { code: string; message: string }[];
  error: { code: string; message: string } | null;
  usage: Usage;
}

/** What a conversation is for. */
export type ConversationKind = "chat" | "job" | "heartbeat" | "task" | "subagent" | "channel";

/** A conversation. Times are ISO 8601 UTC strings. */
export interface Conversation {
  id: string;
  title: string;
  model: string | null;
  kind: ConversationKind;
  created_at: string;
  updated_at: string;
  /** Present when one conversation is asked for, and on creation. */
  message_count?: number;
}

/** A tool call inside an assistant message. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A stored message. */
export interface Message {
  id: number;
  conversation_id: string;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls: ToolCall[] | null;
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: boolean;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  status: "complete" | "streaming" | "interrupted" | "error";
  attachments: { path: string; name: string; type: string; size: number }[] | null;
  /** Why a reply failed (status `error`), as the turn's `error` event said it. */
  error: { code: string; message: string } | null;
  created_at: string;
}

/** One memory search result; `path` is relative to HOME/memory. */
export interface MemoryHit {
  path: string;
  start_line: number;
  end_line: number;
  heading: string;
  /** The passage as the model reads it: text from outside inside `<untrusted>` labels. */
  snippet: string;
  /** When the passage holds text from outside: its parts, each with its source, for people. */
  display?: { text: string; source: string | null }[];
  text: string;
  score: number;
}

/** Lines of a memory file. */
export interface MemoryExcerpt {
  path: string;
  from: number;
  to: number;
  total_lines: number;
  text: string;
}

/** What the memory index holds. */
export interface MemoryStats {
  files: number;
  chunks: number;
  vectors: number;
  embedder: string | null;
  pending: number;
}

/** How a schedule's run ended. */
export type RunStatus = "running" | "ok" | "error" | "missed" | "skipped" | "interrupted";

/** A scheduled job with what its run log says. */
export interface Schedule {
  id: number;
  name: string;
  prompt: string;
  schedule: string;
  timezone: string;
  enabled: boolean;
  missed_policy: "run_once" | "skip";
  model: string | null;
  conversation_id: string | null;
  next_run: string | null;
  last_run: string | null;
  anchor: string;
  running_since: string | null;
  created_at: string;
  updated_at: string;
  last_status: RunStatus | null;
  last_result: string | null;
  last_failure: { at: string; error: string } | null;
  missed_runs: number;
  last_missed_at: string | null;
}

/** One line of a schedule's run log. */
export interface ScheduleRun {
  id: number;
  job_id: number;
  trigger: "schedule" | "manual" | "catch_up";
  status: RunStatus;
  due_at: string | null;
  started_at: string;
  finished_at: string | null;
  result: string;
  error: string | null;
  missed_count: number;
  input_tokens: number | null;
  output_tokens: number | null;
  conversation_id: string | null;
}

/** A new schedule: cron (`0 9 * * 1-5`), `every 10m`, or `once:2026-12-24T18:00`. */
export interface NewSchedule {
  name: string;
  prompt: string;
  schedule: string;
  /** @default {the server's zone} */
  timezone?: string;
  /** @default {"run_once"} */
  missed_policy?: "run_once" | "skip";
  model?: string | null;
  /** @default {true} */
  enabled?: boolean;
}

/** Where a task is in its life. */
export type TaskStatus =
  | "pending"
  | "in_progress"
  | "waiting"
  | "complete"
  | "failed"
  | "cancelled";

/** A background task. */
export interface Task {
  id: number;
  title: string;
  prompt: string;
  priority: number;
  status: TaskStatus;
  blocked_by: number[];
  output: string;
  waiting_reason: string | null;
  claimed_by: string | null;
  claimed_at: string | null;
  attempts: number;
  conversation_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A new task. */
export interface NewTask {
  title: string;
  /** @default {the title} */
  prompt?: string;
  /** Higher runs first. @default {0} */
  priority?: number;
  /** Ids of tasks that must be complete first. @default {[]} */
  blocked_by?: number[];
}

/** A tool as hob lists it: what its Worker may touch, and whether calls ask first. */
export interface ToolInfo {
  name: string;
  description: string;
  category: string;
  parameters: Record<string, unknown>;
  permissions: {
    read: false | string[];
    write: false | string[];
    net: boolean | string[];
    env: false | string[];
    run: false | string[];
  };
  side_effect: "none" | "local" | "external";
  /** The configured policy. */
  policy: "allow" | "ask" | "deny";
  /** What calls get, in words: the policy with the tool's own review, e.g. "allowlist, else ask". */
  effective_policy: string;
  origin:
    | { kind: "builtin" }
    | { kind: "user"; file: string }
    | { kind: "mcp"; server: string; tool: string };
}

/** The outcome of {@linkcode HobClient.tools}`.invoke`; a failing tool is `is_error`, not an exception. */
export interface ToolResult {
  content: string;
  is_error: boolean;
  stop?: boolean;
  event_id: number;
  duration_ms: number;
}

/** Where an approval stands. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/** A tool call that asked for a decision. */
export interface Approval {
  id: string;
  conversation_id: string | null;
  tool_call_id: string | null;
  tool: string;
  arguments: string;
  reason: string;
  shape: string;
  status: ApprovalStatus;
  remember: boolean;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

/** A heartbeat finding or a finished task. */
export interface Notification {
  id: number;
  kind: string;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
}

/** Sums over model calls: `GET /api/usage`'s totals, groups and days. */
export interface CallSums {
  calls: number;
  /** Prompt tokens, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cost_usd: number;
}

/** `GET /api/usage`: what the model calls cost since `since`. */
export interface UsageReport {
  since: string;
  by: "model" | "kind" | "job" | "tool";
  totals: CallSums;
  /** By `by`, the costliest first; `key` null for calls with none. */
  groups: (CallSums & { key: string | null })[];
  /** By UTC day (`key`: `2026-11-26`), oldest first. */
  days: (CallSums & { key: string })[];
  budgets: { period: "daily" | "monthly"; limit_usd: number; spent_usd: number }[];
}

/** `GET /api/health`. */
export interface Health {
  ok: boolean;
  version: string;
  uptime_ms: number;
}

/** A model and whether its provider answers. */
export interface ModelReach {
  id: string;
  provider: string;
  reachable: boolean;
  error?: string;
}

/** What `hob status --json` prints. */
export interface Status {
  home: string;
  server: { url: string; running: boolean; version?: string };
  model: ModelReach;
  heartbeat_model?: ModelReach;
  jobs: {
    total: number;
    enabled: number;
    next: { name: string; at: string } | null;
    failing: { name: string; at: string; error: string }[];
    missed: { name: string; runs: number; last_noticed: string | null }[];
    list: Schedule[];
  };
  heartbeat: {
    enabled: boolean;
    interval_minutes: number;
    last_tick: string | null;
    last_status:
      | "ok"
      | "reported"
      | "error"
      | "outside_hours"
      | "empty_checklist"
      | "paused"
      | null;
    last_error: string | null;
    last_reply: string | null;
    last_conversation_id: string | null;
    next_tick: string | null;
    ticks: number;
    failures: number;
  };
  tasks: {
    counts: Record<TaskStatus, number>;
    held: { id: number; title: string; status: TaskStatus; worker: string; since: string | null }[];
  };
  workers: {
    id: string;
    pid: number;
    kind: string;
    started_at: string;
    seen_at: string;
    task_id: number | null;
    alive: boolean;
  }[];
  notifications: { unread: number };
  memory: MemoryStats;
  database: { path: string; bytes: number };
  /** The channels of hob.yaml (Telegram…) and how each is doing. */
  channels: {
    name: string;
    account: string | null;
    state: "starting" | "connected" | "retrying" | "stopped";
    last_inbound: string | null;
    last_outbound: string | null;
    last_error: string | null;
    last_error_at: string | null;
    restarts: number;
    ignored: number;
  }[];
}

/** Models every provider offers, and how each answered. */
export interface Models {
  default: string;
  models: { id: string; provider: string; name: string }[];
  providers: {
    name: string;
    type: string;
    base_url?: string;
    /** One hob knows without configuration, not one hob.yaml defines. */
    builtin: boolean;
    ok: boolean;
    models: number;
    error?: string;
  }[];
  /** What to do when the default model's provider did not answer; null when it did. */
  advice: string | null;
}

// --- Errors -----------------------------------------------------------------

/**
 * What every failed call throws: hob's JSON error (`status`, `code`,
 * `message`, `field`), or status 0 with code `unreachable` when hob could not
 * be reached. Permission errors from Deno's sandbox are not wrapped.
 *
 * @example
 * ```ts
 * try {
 *   await hob.tasks.get(999);
 * } catch (error) {
 *   if (error instanceof HobError && error.code === "not_found") console.log("no such task");
 *   else throw error;
 * }
 * ```
 */
export class HobError extends Error {
  override name = "HobError";
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** hob's machine code: `not_found`, `invalid_request`, `unauthorized`, … */
  readonly code: string;
  /** The request field that was wrong, when hob names one. */
  readonly field?: string;
  constructor(
    status: number,
    code: string,
    message: string,
    options: { field?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
  }
}

// --- The client -------------------------------------------------------------

/** Options for {@linkcode connect}. */
export interface ConnectOptions {
  /**
   * hob's address.
   * @default {the origin this module was imported from}
   */
  url?: string;
  /**
   * The API token (HOME/token).
   * @default {`HOB_TOKEN`, if the script may read it (`--allow-env=HOB_TOKEN`)}
   */
  token?: string;
}

/** Options of a chat message. */
export interface ChatOptions {
  /** Continue this conversation; a new one otherwise. */
  conversation_id?: string;
  /** A `<provider>/<model>` id for this turn. */
  model?: string;
  /** Paths from `POST /api/uploads`. */
  attachments?: string[];
  /** Stops the turn; what was written so far is kept. */
  signal?: AbortSignal;
}

/** The client {@linkcode connect} returns. */
export interface HobClient {
  /** The address it talks to. */
  readonly url: string;
  /** Sends a message and waits for the whole reply. */
  chat(message: string, options?: ChatOptions): Promise<ChatReply>;
  /** Sends a message and yields the turn's events as they come; leaving the loop stops the turn. */
  chatStream(message: string, options?: ChatOptions): AsyncIterable<ChatEvent>;
  conversations: {
    list(options?: {
      limit?: number;
      offset?: number;
      /** Title search. */
      q?: string;
      /** @default {"chat"} */
      kind?: ConversationKind | "all";
    }): Promise<Conversation[]>;
    get(id: string): Promise<Conversation>;
    create(options?: { title?: string; model?: string }): Promise<Conversation>;
    messages(id: string, options?: { after?: number; limit?: number }): Promise<Message[]>;
    rename(id: string, title: string): Promise<Conversation>;
    /** `null` goes back to the default model. */
    setModel(id: string, model: string | null): Promise<Conversation>;
    delete(id: string): Promise<void>;
  };
  memory: {
    search(
      query: string,
      options?: { limit?: number; mode?: "hybrid" | "keyword" | "vector" },
    ): Promise<MemoryHit[]>;
    /** Adds a timestamped fact to MEMORY.md; returns the file's path. */
    remember(text: string): Promise<string>;
    /** Adds a note to today's log; returns the file's path. */
    log(text: string): Promise<string>;
    /** Lines of a memory file (`MEMORY.md`, `2026-11-22.md`, …): from line 1, up to 5,000 by default. */
    read(path: string, options?: { from?: number; lines?: number }): Promise<MemoryExcerpt>;
    /** Replaces a memory file (Markdown only), atomically; returns its path. */
    write(path: string, content: string): Promise<string>;
    /** Replaces one section of MEMORY.md. */
    writeSection(section: string, content: string): Promise<string>;
    files(): Promise<string[]>;
    stats(): Promise<MemoryStats>;
    /**
     * Vouches for a memory file you have read (a source added from the web):
     * its text is yours from then on. `read`, the SHA-256 (hex) of the text you
     * read, refuses a file changed since. `changed` false when it held no text from outside.
     */
    trust(path: string, read?: string): Promise<{ path: string; changed: boolean }>;
  };
  schedules: {
    list(): Promise<Schedule[]>;
    get(id: number): Promise<Schedule>;
    add(schedule: NewSchedule): Promise<Schedule>;
    update(id: number, changes: Partial<NewSchedule>): Promise<Schedule>;
    /** Runs the job now and returns the finished run. */
    run(id: number): Promise<ScheduleRun>;
    runs(id: number, options?: { limit?: number }): Promise<ScheduleRun[]>;
    remove(id: number): Promise<void>;
  };
  tasks: {
    list(options?: { status?: TaskStatus; limit?: number }): Promise<Task[]>;
    add(task: NewTask): Promise<Task>;
    get(id: number): Promise<Task>;
    cancel(id: number): Promise<Task>;
    resume(id: number, note?: string): Promise<Task>;
  };
  tools: {
    list(): Promise<ToolInfo[]>;
    /** Runs a tool as the owner: no approval is asked, a `deny` policy still holds. */
    invoke(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  };
  approvals: {
    /** @default {"pending"} */
    list(status?: ApprovalStatus | "all"): Promise<Approval[]>;
    decide(
      id: string,
      decision: "approve" | "deny",
      options?: { remember?: boolean },
    ): Promise<Approval>;
  };
  notifications: {
    list(options?: { unread?: boolean; limit?: number }): Promise<Notification[]>;
    /** Marks one, or all, read. */
    read(id: number | "all"): Promise<void>;
  };
  models(options?: { refresh?: boolean }): Promise<Models>;
  /** What the model calls cost: `since` a date or days back (`7d`, the default `30d`). */
  usage(options?: { since?: string; by?: UsageReport["by"] }): Promise<UsageReport>;
  status(): Promise<Status>;
  /** Needs no token. */
  health(): Promise<Health>;
}

type Query = Record<string, string | number | boolean | undefined>;
interface Call {
  method?: string;
  query?: Query;
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
}

/**
 * Connects to hob. Nothing is sent until the first call.
 *
 * @example
 * ```ts
 * import { connect } from "http://127.0.0.1:8484/client.ts";
 *
 * const hob = connect({ token: Deno.args[0] });
 * for await (const event of hob.chatStream("What is on my list today?")) {
 *   if (event.type === "text") await Deno.stdout.write(new TextEncoder().encode(event.text));
 * }
 * ```
 */
export function connect(options: ConnectOptions = {}): HobClient {
  const url = (options.url ?? importedFrom()).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(url)) {
    throw new TypeError(
      `Cannot connect to hob as 'url' must be an http(s) origin: current value is '${url}'`,
    );
  }
  const api = transport(url, options.token ?? envToken());
  return {
    url,
    ...chatCalls(api),
    conversations: conversationCalls(api),
    memory: memoryCalls(api),
    schedules: scheduleCalls(api),
    tasks: taskCalls(api),
    tools: toolCalls(api),
    approvals: approvalCalls(api),
    notifications: notificationCalls(api),
    models: (options = {}) =>
      api.json("/api/models", { query: { refresh: options.refresh ? 1 : undefined } }),
    usage: (options = {}) =>
      api.json("/api/usage", { query: { since: options.since, by: options.by } }),
    status: () => api.json("/api/status"),
    health: () => api.json("/api/health"),
  };
}

/**
 * The token given as `--token TOKEN` (or `--token=TOKEN`) in a script's
 * arguments, and the arguments without it. Without one, {@linkcode connect}
 * falls back to `HOB_TOKEN` when the script may read it.
 *
 * @example
 * ```ts
 * const { token, args } = takeToken(Deno.args);
 * const hob = connect({ token });
 * console.log((await hob.chat(args.join(" "))).content);
 * ```
 */
export function takeToken(args: readonly string[]): { token?: string; args: string[] } {
  const rest: string[] = [];
  let token: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--token" && i + 1 < args.length) token = args[++i];
    else if (arg.startsWith("--token=")) token = arg.slice("--token=".length);
    else rest.push(arg);
  }
  return token === undefined ? { args: rest } : { token, args: rest };
}

// --- The calls, by area -----------------------------------------------------

/** How every call reaches hob: one address, one token, hob's errors as HobError. */
interface Transport {
  send(path: string, call?: Call): Promise<Response>;
  json<T>(path: string, call?: Call): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

function transport(url: string, token: string | undefined): Transport {
  async function send(path: string, call: Call = {}): Promise<Response> {
    const headers = new Headers({ accept: call.accept ?? "application/json" });
    if (token) headers.set("authorization", `Bearer ${token}`);
    if (call.body !== undefined) headers.set("content-type", "application/json");
    let response: Response;
    try {
      response = await fetch(`${url}${path}${queryString(call.query)}`, {
        method: call.method ?? "GET",
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: call.signal,
      });
    } catch (error) {
      // fetch's network failures are TypeErrors; Deno's NotCapable and aborts pass through.
      if (!(error instanceof TypeError)) throw error;
      throw new HobError(
        0,
        "unreachable",
        `hob is not reachable at ${url} — is \`hob serve\` running? (${error.message})`,
        { cause: error },
      );
    }
    if (!response.ok) throw await errorFrom(response, token !== undefined);
    return response;
  }

  async function json<T>(path: string, call: Call = {}): Promise<T> {
    const response = await send(path, call);
    if (response.status === 204) return undefined as T;
    return await response.json() as T;
  }

  const post = <T>(path: string, body: unknown = {}) => json<T>(path, { method: "POST", body });
  return { send, json, post };
}

/** A path segment from an id or a name. */
function id(value: string | number): string {
  return encodeURIComponent(String(value));
}

function chatBody(message: string, options: ChatOptions) {
  return {
    message,
    conversation_id: options.conversation_id,
    model: options.model,
    attachments: options.attachments,
  };
}

function chatCalls({ send, json }: Transport): Pick<HobClient, "chat" | "chatStream"> {
  return {
    chat(message, options = {}) {
      return json<ChatReply>("/api/chat", {
        method: "POST",
        body: chatBody(message, options),
        signal: options.signal,
      });
    },

    async *chatStream(message, options = {}) {
      const response = await send("/api/chat", {
        method: "POST",
        body: chatBody(message, options),
        accept: "text/event-stream",
        signal: options.signal,
      });
      let finished = false;
      for await (const event of readEvents(response)) {
        if (event.type === "done") finished = true;
        yield event;
      }
      if (!finished && !options.signal?.aborted) {
        throw new HobError(
          response.status,
          "stream_ended",
          "hob closed the stream before the turn was done — its log may say why",
        );
      }
    },
  };
}

function conversationCalls({ json, post }: Transport): HobClient["conversations"] {
  return {
    async list(options = {}) {
      return (await json<{ conversations: Conversation[] }>("/api/conversations", {
        query: options,
      })).conversations;
    },
    get: (conversation) => json(`/api/conversations/${id(conversation)}`),
    create: (options = {}) => post("/api/conversations", options),
    async messages(conversation, options = {}) {
      return (await json<{ messages: Message[] }>(
        `/api/conversations/${id(conversation)}/messages`,
        { query: options },
      )).messages;
    },
    rename: (conversation, title) =>
      json(`/api/conversations/${id(conversation)}`, { method: "PATCH", body: { title } }),
    setModel: (conversation, model) =>
      json(`/api/conversations/${id(conversation)}/model`, { method: "PUT", body: { model } }),
    delete: (conversation) => json(`/api/conversations/${id(conversation)}`, { method: "DELETE" }),
  };
}

function memoryCalls({ json, post }: Transport): HobClient["memory"] {
  return {
    async search(query, options = {}) {
      return (await json<{ hits: MemoryHit[] }>("/api/memory/search", {
        query: { q: query, ...options },
      })).hits;
    },
    async remember(text) {
      return (await post<{ path: string }>("/api/memory/remember", { text })).path;
    },
    async log(text) {
      return (await post<{ path: string }>("/api/memory/log", { text })).path;
    },
    read: (path, options = {}) => json(`/api/memory/files/${filePath(path)}`, { query: options }),
    async write(path, content) {
      return (await json<{ path: string }>(`/api/memory/files/${filePath(path)}`, {
        method: "PUT",
        body: { content },
      })).path;
    },
    async writeSection(section, content) {
      return (await json<{ path: string }>("/api/memory/sections", {
        method: "PUT",
        body: { section, content },
      })).path;
    },
    async files() {
      return (await json<{ files: string[] }>("/api/memory/files")).files;
    },
    stats: () => json("/api/memory/stats"),
    async trust(path, read) {
      const { changed, path: trusted } = await post<{ path: string; changed: boolean }>(
        "/api/memory/trust",
        { path, ...(read ? { read } : {}) },
      );
      return { path: trusted, changed };
    },
  };
}

function scheduleCalls({ json, post }: Transport): HobClient["schedules"] {
  return {
    async list() {
      return (await json<{ schedules: Schedule[] }>("/api/schedules")).schedules;
    },
    get: (schedule) => json(`/api/schedules/${id(schedule)}`),
    add: (schedule) => post("/api/schedules", schedule),
    update: (schedule, changes) =>
      json(`/api/schedules/${id(schedule)}`, { method: "PATCH", body: changes }),
    run: (schedule) => post(`/api/schedules/${id(schedule)}/run`),
    async runs(schedule, options = {}) {
      return (await json<{ runs: ScheduleRun[] }>(`/api/schedules/${id(schedule)}/runs`, {
        query: options,
      })).runs;
    },
    remove: (schedule) => json(`/api/schedules/${id(schedule)}`, { method: "DELETE" }),
  };
}

function taskCalls({ json, post }: Transport): HobClient["tasks"] {
  return {
    async list(options = {}) {
      return (await json<{ tasks: Task[] }>("/api/tasks", { query: options })).tasks;
    },
    add: (task) => post("/api/tasks", task),
    get: (task) => json(`/api/tasks/${id(task)}`),
    cancel: (task) => post(`/api/tasks/${id(task)}/cancel`),
    resume: (task, note) => post(`/api/tasks/${id(task)}/resume`, { note }),
  };
}

function toolCalls({ json, post }: Transport): HobClient["tools"] {
  return {
    async list() {
      return (await json<{ tools: ToolInfo[] }>("/api/tools")).tools;
    },
    invoke: (name, args = {}) => post(`/api/tools/${id(name)}/invoke`, { args }),
  };
}

function approvalCalls({ json, post }: Transport): HobClient["approvals"] {
  return {
    async list(status = "pending") {
      return (await json<{ approvals: Approval[] }>("/api/approvals", { query: { status } }))
        .approvals;
    },
    decide: (approval, decision, options = {}) =>
      post(`/api/approvals/${id(approval)}`, { decision, remember: options.remember ?? false }),
  };
}

function notificationCalls({ json, post }: Transport): HobClient["notifications"] {
  return {
    async list(options = {}) {
      return (await json<{ notifications: Notification[] }>("/api/notifications", {
        query: { unread: options.unread ? 1 : undefined, limit: options.limit },
      })).notifications;
    },
    async read(notification) {
      await post(`/api/notifications/${id(notification)}/read`);
    },
  };
}

// --- Helpers ----------------------------------------------------------------

/** The origin this module was served from: a script that imports it needs no URL. */
function importedFrom(): string {
  const { protocol, origin } = new URL(import.meta.url);
  if (protocol !== "http:" && protocol !== "https:") {
    throw new TypeError(
      `Cannot connect to hob as 'url' is missing and this module was not imported from hob: current location is ${import.meta.url}`,
    );
  }
  return origin;
}

/** `HOB_TOKEN`, only when the script was granted it: asking would prompt the user. */
function envToken(): string | undefined {
  if (typeof Deno === "undefined") return undefined;
  const state = Deno.permissions.querySync({ name: "env", variable: "HOB_TOKEN" }).state;
  return state === "granted" ? Deno.env.get("HOB_TOKEN") || undefined : undefined;
}

function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A memory path with each segment escaped, its slashes kept. */
function filePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** hob's `{"error": {code, message, field?}}` as a HobError; anything else by its status. */
async function errorFrom(response: Response, hadToken: boolean): Promise<HobError> {
  const text = await response.text();
  let error: { code?: unknown; message?: unknown; field?: unknown } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch { /* not hob's JSON */ }
  const code = typeof error?.code === "string" ? error.code : "http_error";
  let message = typeof error?.message === "string"
    ? error.message
    : `hob answered ${response.status} ${response.statusText}: ${text.slice(0, 200)}`;
  if (response.status === 401 && !hadToken) {
    message += " (no token was given: pass connect({ token }), or set HOB_TOKEN and run the " +
      "script with --allow-env=HOB_TOKEN)";
  }
  const field = typeof error?.field === "string" ? error.field : undefined;
  return new HobError(response.status, code, message, { field });
}

/** Parses a text/event-stream body into hob's events, by hand: no EventSource in Deno. */
async function* readEvents(response: Response): AsyncGenerator<ChatEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let name = "";
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const lines = buffer.split("\n");
      // The last piece may be half a line.
      buffer = lines.pop() ?? "";
      for (const raw of lines) {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (line === "") {
          if (data.length > 0) yield toEvent(name, data.join("\n"));
          name = "";
          data = [];
        } else if (line.startsWith(":")) {
          // A comment (keep-alive).
        } else {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const rest = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") name = rest;
          else if (field === "data") data.push(rest);
        }
      }
    }
  } finally {
    // Leaving early cancels the body, which ends the request: hob stops the turn.
    await reader.cancel().catch(() => {});
  }
}

function toEvent(name: string, data: string): ChatEvent {
  try {
    return JSON.parse(data) as ChatEvent;
  } catch {
    // A stream that failed inside hob ends with a plain-text error frame.
    if (name === "error") return { type: "error", code: "stream_error", message: data };
    throw new HobError(
      200,
      "bad_event",
      `hob sent an event that is not JSON: ${data.slice(0, 200)}`,
    );
  }
}
