/**
 * A scripted Anthropic Messages API server on 127.0.0.1 for tests: real HTTP,
 * the real streaming events (message_start, content blocks with text and
 * input_json deltas, message_delta with usage, message_stop), error bodies of
 * the API's shape, and mid-stream `error` events (after a message_delta with
 * the usage so far, when told). A reply may think first (thinking deltas),
 * send `ping` events while it waits, or stall: stop sending mid-answer with
 * the connection left open. Also answers `/v1/models`.
 */

import { fakeTitle, isTitleRequest } from "./openai_server.ts";

/** One scripted answer. */
export type FakeAnthropicReply =
  | {
    text: string | string[];
    delay_ms?: number;
    cache_read?: number;
    /** Thinking sent before the text as thinking deltas, one per delay. */
    thinking?: string[];
    /** While waiting, send a `ping` event this often. */
    ping_ms?: number;
    /** After the text, send nothing more and keep the connection open until the client leaves. */
    stall?: boolean;
  }
  | {
    tool_calls: { name: string; arguments: unknown; id?: string }[];
    text?: string;
  }
  | { status: number; type?: string; message?: string; retry_after_ms?: number }
  | {
    stream_error: string;
    text?: string;
    /** Output tokens counted in a message_delta sent before the error. */
    output_tokens?: number;
  };

/** A request the fake received. */
export interface RecordedAnthropicRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A running fake. `await using` closes it. */
export interface FakeAnthropic extends AsyncDisposable {
  /** Base URL, without `/v1`, as the SDK's `baseURL` takes it. */
  url: string;
  requests: RecordedAnthropicRequest[];
  /** hob's requests for the model list (`/v1/models`), not in `requests`: discovery and `hob serve`'s start ask them. */
  listings: RecordedAnthropicRequest[];
  enqueue(...replies: FakeAnthropicReply[]): void;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * Starts the fake.
 *
 * @example
 * ```ts
 * await using fake = startFakeAnthropic({ replies: [{ text: "Hi" }] });
 * ```
 */
export function startFakeAnthropic(
  options: {
    replies?: FakeAnthropicReply[];
    fallback?: FakeAnthropicReply;
    models?: string[];
  } = {},
): FakeAnthropic {
  const queue = [...(options.replies ?? [])];
  const fallback = options.fallback ?? { text: "ok" };
  const models = options.models ?? ["claude-fake-1"];
  const requests: RecordedAnthropicRequest[] = [];
  const listings: RecordedAnthropicRequest[] = [];
  const controller = new AbortController();

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: () => {},
  }, async (request) => {
    const url = new URL(request.url);
    const body = request.method === "POST" ? await request.json().catch(() => ({})) : {};
    (url.pathname === "/v1/models" ? listings : requests).push({
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body,
    });
    if (url.pathname === "/v1/models") {
      return Response.json({
        data: models.map((id) => ({ id, type: "model", display_name: id })),
        has_more: false,
      });
    }
    if (url.pathname !== "/v1/messages") {
      return errorResponse(404, "not_found_error", "not found");
    }
    const system = Array.isArray(body.system)
      ? (body.system as { text?: string }[]).map((block) => block.text ?? "").join("")
      : String(body.system ?? "");
    if (isTitleRequest(system)) {
      // hob names new conversations with a side request; answer it apart from the queue.
      requests.pop();
      const messages = body.messages as { content: string | { text?: string }[] }[];
      const last = messages.at(-1)?.content;
      const text = typeof last === "string" ? last : (last ?? []).map((b) => b.text ?? "").join("");
      return new Response(events(String(body.model), { text: fakeTitle(text) }), {
        headers: { "content-type": "text/event-stream" },
      });
    }
    const reply = queue.shift() ?? fallback;
    if ("status" in reply) {
      const response = errorResponse(
        reply.status,
        reply.type ?? (reply.status === 429 ? "rate_limit_error" : "api_error"),
        reply.message ?? `fake error ${reply.status}`,
      );
      if (reply.retry_after_ms !== undefined) {
        response.headers.set("retry-after-ms", String(reply.retry_after_ms));
      }
      return response;
    }
    return new Response(events(String(body.model), reply), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  });

  const close = async () => {
    controller.abort();
    await server.finished;
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    listings,
    enqueue: (...replies) => queue.push(...replies),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function errorResponse(status: number, type: string, message: string): Response {
  return Response.json({ type: "error", error: { type, message } }, { status });
}

function events(
  model: string,
  reply: Exclude<FakeAnthropicReply, { status: number }>,
): ReadableStream<Uint8Array> {
  // Aborted when the client goes away, so slow streams stop early.
  const gone = new AbortController();
  const signal = gone.signal;
  return new ReadableStream({
    cancel() {
      gone.abort();
    },
    async start(stream) {
      const send = (type: string, data: Record<string, unknown>) =>
        stream.enqueue(
          encoder.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`),
        );
      try {
        send("message_start", {
          message: {
            id: "msg_fake",
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: {
              input_tokens: 12,
              output_tokens: 1,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: "cache_read" in reply ? reply.cache_read ?? 0 : 0,
            },
          },
        });
        let index = 0;
        const text = "text" in reply ? reply.text : undefined;
        const delay = "delay_ms" in reply ? reply.delay_ms ?? 0 : 0;
        const pingEvery = "ping_ms" in reply ? reply.ping_ms : undefined;
        const wait = async () => {
          for (let waited = 0; waited < delay && !signal.aborted; waited += pingEvery ?? delay) {
            await pause(Math.min(pingEvery ?? delay, delay - waited), signal);
            if (pingEvery && waited + pingEvery < delay && !signal.aborted) send("ping", {});
          }
        };
        const thinking = "thinking" in reply ? reply.thinking ?? [] : [];
        if (thinking.length > 0) {
          send("content_block_start", {
            index,
            content_block: { type: "thinking", thinking: "", signature: "" },
          });
          for (const thought of thinking) {
            await wait();
            if (signal.aborted) return;
            send("content_block_delta", {
              index,
              delta: { type: "thinking_delta", thinking: thought },
            });
          }
          send("content_block_stop", { index });
          index++;
        }
        if (text) {
          send("content_block_start", { index, content_block: { type: "text", text: "" } });
          const pieces = Array.isArray(text) ? text : text.match(/\S+\s*|\s+/g) ?? [text];
          for (const piece of pieces) {
            await wait();
            if (signal.aborted) return;
            send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
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
          send("content_block_stop", { index });
          index++;
        }
        if ("stream_error" in reply) {
          if (reply.output_tokens !== undefined) {
            send("message_delta", {
              delta: { stop_reason: null, stop_sequence: null },
              usage: { output_tokens: reply.output_tokens },
            });
          }
          send("error", { error: { type: "overloaded_error", message: reply.stream_error } });
          stream.close();
          return;
        }
        let stop = "end_turn";
        if ("tool_calls" in reply) {
          stop = "tool_use";
          for (const call of reply.tool_calls) {
            const args = typeof call.arguments === "string"
              ? call.arguments
              : JSON.stringify(call.arguments);
            send("content_block_start", {
              index,
              content_block: {
                type: "tool_use",
                id: call.id ?? `toolu_${index}_${crypto.randomUUID().slice(0, 8)}`,
                name: call.name,
                input: {},
              },
            });
            for (let at = 0; at < args.length; at += 5) {
              send("content_block_delta", {
                index,
                delta: { type: "input_json_delta", partial_json: args.slice(at, at + 5) },
              });
            }
            send("content_block_stop", { index });
            index++;
          }
        }
        send("message_delta", {
          delta: { stop_reason: stop, stop_sequence: null },
          usage: { output_tokens: 7 },
        });
        send("message_stop", {});
        stream.close();
      } catch {
        // The client went away mid-stream.
      }
    },
  });
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
