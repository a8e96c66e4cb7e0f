/**
 * Any OpenAI-compatible chat server (OpenAI, OpenRouter, Ollama, LM Studio,
 * vLLM, llama.cpp) through the official `openai` client: streamed text, tool
 * calls assembled from their streamed fragments, usage (also when it comes
 * with an error), retries with backoff, and an answer that goes quiet ended
 * (idle.ts). The SDK is imported on first use, so starting hob does not pay
 * for it.
 */

import type OpenAI from "openai";
import type { ChatMessage, LlmEvent, LlmRequest, ToolCall, Usage } from "../core/types.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { describeFailure, sdkFailureEvent } from "./failure.ts";
import { getJson } from "./fetch_json.ts";
import { idleFetch } from "./idle.ts";
import type { ModelInfo, ProviderAdapter } from "./provider.ts";

type OpenAIModule = typeof import("openai");
type OpenAIClient = InstanceType<OpenAIModule["default"]>;

/**
 * Creates the adapter for one OpenAI-compatible provider.
 *
 * @example
 * ```ts
 * const ollama = createOpenAiCompatProvider(config.providers.ollama);
 * for await (const event of ollama.stream("llama3.2", request)) console.log(event);
 * ```
 */
export function createOpenAiCompatProvider(
  provider: ProviderConfig,
): ProviderAdapter {
  const connect = lazyClient(provider);
  return {
    name: provider.name,
    async *stream(model, request): AsyncGenerator<LlmEvent> {
      const { sdk, client } = await connect();
      try {
        const stream = await client.chat.completions.create(chatRequest(model, request), {
          signal: request.signal,
          // Every payload as an item, errors too, so usage sent beside an error is not lost.
          __streamMode: "events",
          __synthesizeEventData: true,
        });
        yield* mapChunks(provider, stream as unknown as AsyncIterable<StreamItem>, request.signal);
      } catch (error) {
        const failed = sdkFailureEvent(provider, sdk, error, request.signal);
        if (failed) yield failed;
      }
    },
    listModels: (signal) => listOpenAiModels(provider, signal),
    prepare: () => connect().then(() => {}, () => {}),
  };
}

/** The SDK and its client, imported and made on first use. */
function lazyClient(
  provider: ProviderConfig,
): () => Promise<{ sdk: OpenAIModule; client: OpenAIClient }> {
  let client: Promise<{ sdk: OpenAIModule; client: OpenAIClient }> | undefined;
  return () =>
    client ??= import("openai").then((sdk) => ({
      sdk,
      client: new sdk.default({
        baseURL: provider.base_url,
        // Local servers need no key, but the client insists on one.
        apiKey: provider.api_key || "none",
        defaultHeaders: provider.headers,
        maxRetries: provider.max_retries,
        timeout: provider.timeout_ms,
        fetch: idleFetch(provider.idle_timeout_ms),
      }),
    }));
}

/** The Chat Completions request: the system prompt first, tools only when there are some. */
function chatRequest(
  model: string,
  request: LlmRequest,
): OpenAI.Chat.ChatCompletionCreateParamsStreaming {
  return {
    model,
    messages: [
      { role: "system", content: request.system },
      ...toOpenAiMessages(request.messages),
    ],
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          type: "function" as const,
          function: {
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
          },
        })),
      }
      : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** A chunk, or an error the server sent inside the stream (perhaps with the usage so far). */
type Payload = Partial<OpenAI.Chat.ChatCompletionChunk> & { error?: unknown };

/** One payload of the stream as the SDK hands it in events mode: its SSE event's name and its data. */
interface StreamItem {
  event: string | null;
  data: Payload;
}

/**
 * Maps the streamed chunks to hob's events: usage and text as they come, tool
 * calls once the stream has ended and their fragments are whole; an error in
 * the stream ends it, after the usage it carried.
 */
async function* mapChunks(
  provider: ProviderConfig,
  stream: AsyncIterable<StreamItem>,
  signal: AbortSignal | undefined,
): AsyncGenerator<LlmEvent> {
  const calls = new Map<number, ToolCall>();
  let stopReason = "stop";
  for await (const { event, data: chunk } of stream) {
    if (chunk?.usage) yield { type: "usage", usage: usageOf(chunk.usage) };
    if (event === "error" || chunk?.error) {
      yield { type: "error", error: streamedFailure(provider, chunk?.error ?? chunk) };
      return;
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) {
      yield { type: "text", text: choice.delta.content };
    }
    for (const fragment of choice.delta?.tool_calls ?? []) addFragment(calls, fragment);
    if (choice.finish_reason) stopReason = choice.finish_reason;
  }
  // An aborted stream ends quietly; what came is all there is.
  if (signal?.aborted) return;
  for (const [index, call] of [...calls].sort((a, b) => a[0] - b[0])) {
    yield {
      type: "tool_call",
      call: {
        id: call.id || `call_${index}`,
        name: call.name,
        arguments: call.arguments || "{}",
      },
    };
  }
  yield { type: "done", stop_reason: stopReason };
}

/** An error the server sent inside the stream, worded like any failure of the provider. */
function streamedFailure(provider: ProviderConfig, error: unknown) {
  const said = (error as { message?: unknown } | null)?.message;
  return describeFailure(provider, {
    kind: "other",
    detail: typeof said === "string" ? said : JSON.stringify(error),
  });
}

function usageOf(usage: OpenAI.CompletionUsage): Usage {
  return {
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    ...(usage.prompt_tokens_details?.cached_tokens
      ? { cache_read_tokens: usage.prompt_tokens_details.cached_tokens }
      : {}),
  };
}

/** Adds one streamed fragment of a tool call to the call at its index. */
function addFragment(
  calls: Map<number, ToolCall>,
  fragment: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall,
): void {
  const call = calls.get(fragment.index) ?? { id: "", name: "", arguments: "" };
  if (fragment.id) call.id = fragment.id;
  if (fragment.function?.name) call.name += fragment.function.name;
  if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
  calls.set(fragment.index, call);
}

/** The provider's models: Ollama's native listing, or the standard `/models`. */
async function listOpenAiModels(
  provider: ProviderConfig,
  signal: AbortSignal,
): Promise<ModelInfo[]> {
  const base = provider.base_url!.replace(/\/+$/, "");
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.api_key) {
    headers.authorization = `Bearer ${provider.api_key}`;
  }
  if (provider.name === "ollama") {
    // Ollama's native listing is at the server root, beside /v1.
    const root = base.replace(/\/v1$/, "");
    const body = await getJson(`${root}/api/tags`, headers, signal) as {
      models?: { name?: string; model?: string }[];
    };
    return (body.models ?? []).map((m) => modelInfo(provider.name, String(m.name ?? m.model)));
  }
  const body = await getJson(`${base}/models`, headers, signal) as {
    data?: { id?: string }[];
  };
  return (body.data ?? []).map((m) => modelInfo(provider.name, String(m.id)));
}

/** Converts hob's messages to the Chat Completions format. */
export function toOpenAiMessages(messages: ChatMessage[]) {
  return messages.map((message) => {
    if (message.role === "tool") {
      return {
        role: "tool" as const,
        tool_call_id: message.tool_call_id,
        content: message.content,
      };
    }
    if (message.role === "assistant" && message.tool_calls?.length) {
      return {
        role: "assistant" as const,
        content: message.content || null,
        tool_calls: message.tool_calls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
    if (message.role === "user" && message.images?.length) {
      return {
        role: "user" as const,
        content: [
          { type: "text" as const, text: message.content },
          ...message.images.map((image) => ({
            type: "image_url" as const,
            image_url: { url: `data:${image.media_type};base64,${image.data}` },
          })),
        ],
      };
    }
    return { role: message.role, content: message.content };
  });
}

function modelInfo(provider: string, name: string): ModelInfo {
  return { id: `${provider}/${name}`, provider, name };
}
