/**
 * A scripted OpenAI-compatible server on 127.0.0.1 for tests: real HTTP, the
 * real Chat Completions wire format (SSE chunks, tool-call fragments, usage,
 * `[DONE]`), errors with the status codes providers use, and slow streams.
 * Also answers `/v1/models` and Ollama's `/api/tags`. Replies are taken from a
 * queue in order; when it is empty the fallback answers. A reply may also
 * think first (`reasoning_content` deltas), send keep-alive comments while it
 * waits, or stall: stop sending mid-answer with the connection left open.
 */

import { titleFrom } from "../../src/core/agent.ts";
import { TITLE_PROMPT } from "../../src/core/title.ts";

/** One scripted answer. */
export type FakeReply =
  | {
    /** Text to stream; an array gives the chunks, a string is split into words. */
    text: string | string[];
    /** Milliseconds to wait before each chunk. */
    delay_ms?: number;
    usage?: FakeUsage;
    /** Reasoning sent before the text as `reasoning_content` deltas, one per delay. */
    reasoning?: string[];
    /** While waiting, send an SSE comment (`: keep-alive`) this often. */
    keep_alive_ms?: number;
    /** After the text, send nothing more and keep the connection open until the client leaves. */
    stall?: boolean;
  }
  | {
    /** Tool calls to stream, their arguments split into fragments. */
    tool_calls: { name: string; arguments: unknown; id?: string }[];
    /** Text streamed before the calls. */
    text?: string;
    /** Milliseconds to wait before the calls. */
    delay_ms?: number;
    usage?: FakeUsage;
  }
  | {
    /** Answer with this HTTP status and an OpenAI-style error body. */
    status: number;
    message?: string;
    /** Sent as `retry-after-ms`, which the openai client honours. */
    retry_after_ms?: number;
  }
  | {
    /** Stream this text, then an error object inside the stream, then close. */
    stream_error: string;
    text?: string;
    /** Usage sent in the error's chunk, as some servers do. */
    usage?: FakeUsage;
  };

/** Token counts the fake reports for one answer; `cached_tokens` as `prompt_tokens_details`. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

/** Reported when a reply names none. */
const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 10, completion_tokens: 5 };

/** A request the fake received. */
export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** `performance.now()` when the request arrived (the fake runs in the caller's process). */
  arrived: number;
  /** Milliseconds the fake spent on the request, from arrival to its last byte. */
  duration_ms?: number;
}

/** A running fake. `await using` closes it. */
export interface FakeOpenAI extends AsyncDisposable {
  /** Base URL including `/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** hob's requests to title a new conversation, answered apart from the queue (not in `requests`). */
  titleRequests: RecordedRequest[];
  /**
   * hob's requests for the model list (`/v1/models`, `/api/tags`), not in `requests`: model
   * discovery and `hob serve`'s start ask them beside whatever a test counts.
   */
  listings: RecordedRequest[];
  /** Every usage the fake sent (titles' too), in order: what hob was told it spent. */
  reported: FakeUsage[];
  /** Adds replies to the end of the queue. */
  enqueue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

/** Options for {@linkcode startFakeOpenAI}. */
export interface FakeOpenAIOptions {
  replies?: FakeReply[];
  /** Answers when the queue is empty. @default {{ text: "ok" }} */
  fallback?: FakeReply;
  /** Answers when the queue is empty, from the request's body (instead of `fallback`). */
  respond?: (body: Record<string, unknown>) => FakeReply;
  /** Model ids listed by /v1/models and /api/tags. */
  models?: string[];
  /** Port to bind; 0 picks a free one. */
  port?: number;
}

const encoder = new TextEncoder();

/**
 * Starts the fake.
 *
 * @example
 * ```ts
 * await using fake = startFakeOpenAI({ replies: [{ text: "Hello there" }] });
 * ```
 */
export function startFakeOpenAI(options: FakeOpenAIOptions = {}): FakeOpenAI {
  const queue = [...(options.replies ?? [])];
  const fallback = options.fallback ?? { text: "ok" };
  const models = options.models ?? ["fake-model"];
  const requests: RecordedRequest[] = [];
  const titleRequests: RecordedRequest[] = [];
  const listings: RecordedRequest[] = [];
  const reported: FakeUsage[] = [];
  const report = (usage: FakeUsage) => reported.push(usage);
  const controller = new AbortController();

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    signal: controller.signal,
    onListen: () => {},
  }, async (request) => {
    const arrived = performance.now();
    const url = new URL(request.url);
    const body = request.method === "POST" ? await request.json().catch(() => ({})) : {};
    const record: RecordedRequest = {
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body,
      arrived,
    };
    const listing = url.pathname === "/v1/models" || url.pathname === "/api/tags";
    (listing ? listings : requests).push(record);
    const finished = () => record.duration_ms = performance.now() - arrived;
    if (url.pathname === "/v1/models") {
      return Response.json({
        object: "list",
        data: models.map((id) => ({ id, object: "model", owned_by: "fake" })),
      });
    }
    if (url.pathname === "/api/tags") {
      return Response.json({
        models: models.map((name) => ({ name, model: name, size: 1 })),
      });
    }
    if (url.pathname === "/v1/embeddings") {
      // Deterministic vectors: each text's words hashed into 16 dimensions.
      const input = Array.isArray(body.input) ? body.input as string[] : [String(body.input)];
      return Response.json({
        object: "list",
        model: body.model,
        data: input.map((text, index) => {
          const vector = new Array(16).fill(0);
          for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
            let hash = 0;
            for (const c of word) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
            vector[hash % 16] += 1;
          }
          return { object: "embedding", index, embedding: vector };
        }),
      });
    }
    if (url.pathname !== "/v1/chat/completions") {
      return Response.json({ error: { message: "not found" } }, { status: 404 });
    }
    const messages = Array.isArray(body.messages)
      ? body.messages as { role: string; content: string }[]
      : [];
    if (isTitleRequest(messages[0]?.role === "system" ? messages[0].content : "")) {
      // hob names new conversations with a side request; answer it apart, so scripted replies keep their order.
      titleRequests.push(record);
      requests.pop();
      return titleReply(
        String(body.model ?? "fake-model"),
        messages.at(-1)?.content ?? "",
        body.stream === true,
        report,
      );
    }
    const reply = queue.shift() ?? options.respond?.(body) ?? fallback;
    if ("status" in reply) {
      const headers: Record<string, string> = {};
      if (reply.retry_after_ms !== undefined) {
        headers["retry-after-ms"] = String(reply.retry_after_ms);
      }
      return Response.json(
        {
          error: {
            message: reply.message ?? `fake error ${reply.status}`,
            type: "fake_error",
            code: null,
          },
        },
        { status: reply.status, headers },
      );
    }
    const model = String(body.model ?? "fake-model");
    if (body.stream !== true) return Response.json(completion(model, reply, report));
    return new Response(streamChunks(model, reply, finished, report), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });

  const close = async () => {
    controller.abort();
    await server.finished;
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    port: server.addr.port,
    requests,
    titleRequests,
    listings,
    reported,
    enqueue: (...replies) => queue.push(...replies),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Whether a system prompt is hob's conversation-naming one. */
export function isTitleRequest(system: string): boolean {
  return system === TITLE_PROMPT;
}

/** The fake's title: the conversation's first line, as hob would cut it — so titles stay predictable. */
export function fakeTitle(prompt: string): string {
  return titleFrom(prompt.replace(/^Title this conversation\. It begins:\n\n/, ""));
}

function titleReply(
  model: string,
  prompt: string,
  stream: boolean,
  report: (usage: FakeUsage) => void,
): Response {
  const reply = { text: [fakeTitle(prompt)] };
  if (!stream) return Response.json(completion(model, reply, report));
  return new Response(streamChunks(model, reply, () => {}, report), {
    headers: { "content-type": "text/event-stream" },
  });
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function textChunks(text: string | string[]): string[] {
  if (Array.isArray(text)) return text;
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function streamChunks(
  model: string,
  reply: Exclude<FakeReply, { status: number }>,
  finished: () => void,
  report: (usage: FakeUsage) => void,
): ReadableStream<Uint8Array> {
  // Aborted when the client goes away, so slow streams stop early.
  const gone = new AbortController();
  const signal = gone.signal;
  return new ReadableStream({
    cancel() {
      gone.abort();
    },
    async start(stream) {
      const send = (data: unknown) =>
        stream.enqueue(encoder.encode(`data: ${JSON.stringify(data)}\n\n`));
      const keepAlive = "keep_alive_ms" in reply ? reply.keep_alive_ms : undefined;
      const wait = (ms: number) =>
        keepAlive
          ? waitSending(
            ms,
            keepAlive,
            () => stream.enqueue(encoder.encode(": keep-alive\n\n")),
            signal,
          )
          : sleep(ms, signal);
      try {
        send(chunk(model, { role: "assistant", content: "" }));
        const text = "text" in reply ? reply.text : undefined;
        const delay = "delay_ms" in reply ? reply.delay_ms ?? 0 : 0;
        for (const thought of "reasoning" in reply ? reply.reasoning ?? [] : []) {
          if (delay) await wait(delay);
          if (signal.aborted) return;
          send(chunk(model, { reasoning_content: thought }));
        }
        for (const piece of text ? textChunks(text) : []) {
          if (delay) await wait(delay);
          if (signal.aborted) return;
          send(chunk(model, { content: piece }));
        }
        if ("stall" in reply && reply.stall) {
          // Quiet, the connection open, until the client gives up.
          if (!signal.aborted) {
            await new Promise((resolve) =>
              signal.addEventListener("abort", resolve, { once: true })
            );
          }
          return;
        }
        if ("stream_error" in reply) {
          send({
            error: { message: reply.stream_error, type: "server_error" },
            ...(reply.usage ? { usage: wireUsage(reply.usage) } : {}),
          });
          if (reply.usage) report(reply.usage);
          stream.close();
          return;
        }
        let finish = "stop";
        if ("tool_calls" in reply) {
          finish = "tool_calls";
          if (reply.delay_ms && !text) await sleep(reply.delay_ms, signal);
          reply.tool_calls.forEach((call, index) => {
            const args = typeof call.arguments === "string"
              ? call.arguments
              : JSON.stringify(call.arguments);
            send(chunk(model, {
              tool_calls: [{
                index,
                id: call.id ?? `call_${index}_${crypto.randomUUID().slice(0, 8)}`,
                type: "function",
                function: { name: call.name, arguments: "" },
              }],
            }));
            // Arguments arrive in fragments, as real servers send them.
            for (let at = 0; at < args.length; at += 7) {
              send(chunk(model, {
                tool_calls: [{ index, function: { arguments: args.slice(at, at + 7) } }],
              }));
            }
          });
        }
        send(chunk(model, {}, finish));
        const usage = "usage" in reply && reply.usage ? reply.usage : DEFAULT_USAGE;
        send({
          id: "chatcmpl-fake",
          object: "chat.completion.chunk",
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [],
          usage: wireUsage(usage),
        });
        report(usage);
        stream.enqueue(encoder.encode("data: [DONE]\n\n"));
        stream.close();
        finished();
      } catch {
        // The client went away mid-stream.
      }
    },
  });
}

/** The Chat Completions `usage` object. */
function wireUsage(usage: FakeUsage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } }
      : {}),
  };
}

function completion(
  model: string,
  reply: Exclude<FakeReply, { status: number }>,
  report: (usage: FakeUsage) => void,
) {
  const text = "text" in reply && reply.text !== undefined ? textChunks(reply.text).join("") : "";
  const calls = "tool_calls" in reply
    ? reply.tool_calls.map((call, index) => ({
      id: call.id ?? `call_${index}`,
      type: "function",
      function: {
        name: call.name,
        arguments: typeof call.arguments === "string"
          ? call.arguments
          : JSON.stringify(call.arguments),
      },
    }))
    : undefined;
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: text || null, tool_calls: calls },
      finish_reason: calls ? "tool_calls" : "stop",
    }],
    usage: wireUsage(reportUsage(reply, report)),
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Waits `ms`, calling `ping` every `everyMs` meanwhile; stops early when `signal` aborts. */
async function waitSending(
  ms: number,
  everyMs: number,
  ping: () => void,
  signal: AbortSignal,
): Promise<void> {
  for (let waited = 0; waited < ms && !signal.aborted; waited += everyMs) {
    await sleep(Math.min(everyMs, ms - waited), signal);
    if (!signal.aborted && waited + everyMs < ms) ping();
  }
}

function reportUsage(
  reply: Exclude<FakeReply, { status: number }>,
  report: (usage: FakeUsage) => void,
): FakeUsage {
  const usage = "usage" in reply && reply.usage ? reply.usage : DEFAULT_USAGE;
  report(usage);
  return usage;
}
