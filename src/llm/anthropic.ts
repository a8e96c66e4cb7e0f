/**
 * Anthropic's Messages API through the official `@anthropic-ai/sdk`: streamed
 * text and tool use, usage with cache figures (also of an answer that failed
 * midway), prompt caching on the system prompt (which holds identity and
 * memory and changes rarely between turns), and an answer that goes quiet
 * ended (idle.ts). The SDK is imported on first use.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type { ChatMessage, LlmEvent, LlmRequest, Usage } from "../core/types.ts";
import { DEFAULT_MAX_OUTPUT_TOKENS, type ProviderConfig } from "../config/providers.ts";
import { sdkFailureEvent } from "./failure.ts";
import { getJson } from "./fetch_json.ts";
import { idleFetch } from "./idle.ts";
import type { ModelInfo, ProviderAdapter } from "./provider.ts";

type AnthropicModule = typeof import("@anthropic-ai/sdk");
type AnthropicClient = InstanceType<AnthropicModule["default"]>;

/** The Messages API version hob speaks. */
const ANTHROPIC_VERSION = "2023-06-01";

type Block =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | {
    type: "tool_result";
    tool_use_id: string;
    content: string;
    is_error?: boolean;
  };

/**
 * Creates the adapter for an Anthropic provider.
 *
 * @example
 * ```ts
 * const anthropic = createAnthropicProvider(config.providers.anthropic);
 * ```
 */
export function createAnthropicProvider(
  provider: ProviderConfig,
): ProviderAdapter {
  const connect = lazyClient(provider);
  return {
    name: provider.name,
    async *stream(model, request): AsyncGenerator<LlmEvent> {
      const { sdk, client } = await connect();
      const state = newStreamState();
      try {
        const stream = await client.messages.create(messagesRequest(model, request), {
          signal: request.signal,
        });
        for await (const event of stream) {
          const mapped = toLlmEvent(event, state);
          if (mapped) yield mapped;
        }
        if (request.signal?.aborted) return;
        yield { type: "usage", usage: finalUsage(state) };
        yield { type: "done", stop_reason: state.stopReason };
      } catch (error) {
        const failed = sdkFailureEvent(provider, sdk, error, request.signal);
        if (!failed) return;
        // What the answer cost before it failed (message_delta may have counted more).
        if (state.started) yield { type: "usage", usage: finalUsage(state) };
        yield failed;
      }
    },
    listModels: (signal) => listAnthropicModels(provider, signal),
    prepare: () => connect().then(() => {}, () => {}),
  };
}

/** The SDK and its client, imported and made on first use. */
function lazyClient(
  provider: ProviderConfig,
): () => Promise<{ sdk: AnthropicModule; client: AnthropicClient }> {
  let client:
    | Promise<{ sdk: AnthropicModule; client: AnthropicClient }>
    | undefined;
  return () =>
    client ??= import("@anthropic-ai/sdk").then((sdk) => ({
      sdk,
      client: new sdk.default({
        baseURL: provider.base_url,
        apiKey: provider.api_key ?? null,
        defaultHeaders: provider.headers,
        maxRetries: provider.max_retries,
        timeout: provider.timeout_ms,
        fetch: idleFetch(provider.idle_timeout_ms),
      }),
    }));
}

/** The Messages API request: the system prompt cached, tools only when there are some. */
function messagesRequest(
  model: string,
  request: LlmRequest,
): Anthropic.MessageCreateParamsStreaming {
  return {
    model,
    max_tokens: request.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    system: [{
      type: "text",
      text: request.system,
      cache_control: { type: "ephemeral" },
    }],
    messages: toAnthropicMessages(request.messages) as never,
    ...(request.tools.length > 0
      ? {
        tools: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.parameters as never,
        })),
      }
      : {}),
    stream: true,
  };
}

/** What the stream has told so far: token counts, tool calls being assembled, the stop reason. */
interface StreamState {
  /** message_start came: the input is counted. */
  started: boolean;
  input: { plain: number; cacheRead: number; cacheWrite: number };
  output: number;
  /** Tool-use blocks by index, their JSON input still arriving. */
  blocks: Map<number, { id: string; name: string; json: string }>;
  stopReason: string;
}

function newStreamState(): StreamState {
  return {
    started: false,
    input: { plain: 0, cacheRead: 0, cacheWrite: 0 },
    output: 0,
    blocks: new Map(),
    stopReason: "end_turn",
  };
}

/** Maps one SDK event to hob's, updating `state`; undefined when it yields nothing. */
function toLlmEvent(
  event: Anthropic.RawMessageStreamEvent,
  state: StreamState,
): LlmEvent | undefined {
  switch (event.type) {
    case "message_start":
      readStartUsage(event.message.usage, state);
      return;
    case "content_block_start":
      return startBlock(event, state);
    case "content_block_delta":
      return blockDelta(event, state);
    case "content_block_stop":
      return finishBlock(event.index, state);
    case "message_delta":
      readDelta(event, state);
      return;
  }
}

function readStartUsage(u: Anthropic.Usage, state: StreamState): void {
  state.started = true;
  state.input = {
    plain: u.input_tokens ?? 0,
    cacheRead: u.cache_read_input_tokens ?? 0,
    cacheWrite: u.cache_creation_input_tokens ?? 0,
  };
  state.output = u.output_tokens ?? 0;
}

/** A tool-use block starts assembling; a text block may open with text. */
function startBlock(
  event: Anthropic.RawContentBlockStartEvent,
  state: StreamState,
): LlmEvent | undefined {
  const block = event.content_block;
  if (block.type === "tool_use") {
    state.blocks.set(event.index, { id: block.id, name: block.name, json: "" });
  } else if (block.type === "text" && block.text) {
    return { type: "text", text: block.text };
  }
}

/** Text goes out at once; a tool's JSON input is kept until its block ends. */
function blockDelta(
  event: Anthropic.RawContentBlockDeltaEvent,
  state: StreamState,
): LlmEvent | undefined {
  const delta = event.delta;
  if (delta.type === "text_delta") return { type: "text", text: delta.text };
  if (delta.type === "input_json_delta") {
    const block = state.blocks.get(event.index);
    if (block) block.json += delta.partial_json;
  }
}

/** A finished tool-use block becomes a tool call. */
function finishBlock(index: number, state: StreamState): LlmEvent | undefined {
  const block = state.blocks.get(index);
  if (!block) return;
  state.blocks.delete(index);
  return {
    type: "tool_call",
    call: { id: block.id, name: block.name, arguments: block.json || "{}" },
  };
}

/** The stop reason and the counts as they stand at the end. */
function readDelta(event: Anthropic.RawMessageDeltaEvent, state: StreamState): void {
  if (event.delta.stop_reason) state.stopReason = event.delta.stop_reason;
  const u = event.usage;
  if (u.output_tokens != null) state.output = u.output_tokens;
  if (u.input_tokens != null) state.input.plain = u.input_tokens;
  if (u.cache_read_input_tokens != null) state.input.cacheRead = u.cache_read_input_tokens;
  if (u.cache_creation_input_tokens != null) {
    state.input.cacheWrite = u.cache_creation_input_tokens;
  }
}

/** Usage with the input counted whole: plain, read from the cache and written to it. */
function finalUsage({ input, output }: StreamState): Usage {
  const usage: Usage = {
    input_tokens: input.plain + input.cacheRead + input.cacheWrite,
    output_tokens: output,
  };
  if (input.cacheRead) usage.cache_read_tokens = input.cacheRead;
  if (input.cacheWrite) usage.cache_write_tokens = input.cacheWrite;
  return usage;
}

/** The provider's models, from its `/v1/models`. */
async function listAnthropicModels(
  provider: ProviderConfig,
  signal: AbortSignal,
): Promise<ModelInfo[]> {
  if (!provider.api_key) {
    throw new Error(
      `no API key${provider.api_key_env ? ` (set ${provider.api_key_env})` : ""}`,
    );
  }
  const base = provider.base_url!.replace(/\/+$/, "");
  const body = await getJson(`${base}/v1/models`, {
    ...provider.headers,
    "x-api-key": provider.api_key,
    "anthropic-version": ANTHROPIC_VERSION,
  }, signal) as { data?: { id?: string }[] };
  return (body.data ?? []).map((m) => ({
    id: `${provider.name}/${m.id}`,
    provider: provider.name,
    name: String(m.id),
  }));
}

/**
 * Converts hob's messages to Anthropic's: tool calls become `tool_use` blocks,
 * tool results `tool_result` blocks in a user message, and neighbours of the
 * same role merge, because the API wants user and assistant to alternate.
 */
export function toAnthropicMessages(
  messages: ChatMessage[],
): { role: "user" | "assistant"; content: Block[] }[] {
  const out: { role: "user" | "assistant"; content: Block[] }[] = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const content: Block[] = [];
    if (message.role === "tool") {
      content.push({
        type: "tool_result",
        tool_use_id: message.tool_call_id,
        content: message.content,
        ...(message.is_error ? { is_error: true } : {}),
      });
    } else {
      if (message.role === "user") {
        for (const image of message.images ?? []) {
          content.push({
            type: "image",
            source: { type: "base64", media_type: image.media_type, data: image.data },
          });
        }
      }
      if (message.content) {
        content.push({ type: "text", text: message.content });
      }
      if (message.role === "assistant") {
        for (const call of message.tool_calls ?? []) {
          content.push({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: parseArguments(call.arguments),
          });
        }
      }
    }
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  }
  return out;
}

function parseArguments(text: string): unknown {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
