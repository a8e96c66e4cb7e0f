/**
 * Anthropic's Messages API through the official `@anthropic-ai/sdk`: streamed
 * text and tool use, usage with cache figures, and prompt caching on the system
 * prompt (which holds identity and memory and changes rarely between turns).
 * The SDK is imported on first use.
 */

import type { ChatMessage, LlmEvent, Usage } from "../core/types.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { classifySdkError, describeFailure } from "./failure.ts";
import { getJson } from "./fetch_json.ts";
import type { ProviderAdapter } from "./provider.ts";

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
  let client:
    | Promise<{ sdk: AnthropicModule; client: AnthropicClient }>
    | undefined;
  const connect = () =>
    client ??= import("@anthropic-ai/sdk").then((sdk) => ({
      sdk,
      client: new sdk.default({
        baseURL: provider.base_url,
        apiKey: provider.api_key ?? null,
        defaultHeaders: provider.headers,
        maxRetries: provider.max_retries,
        timeout: provider.timeout_ms,
      }),
    }));

  return {
    name: provider.name,
    async *stream(model, request): AsyncGenerator<LlmEvent> {
      const { sdk, client } = await connect();
      const usage: Usage = { input_tokens: 0, output_tokens: 0 };
      let input = { plain: 0, cacheRead: 0, cacheWrite: 0 };
      const blocks = new Map<
        number,
        { id: string; name: string; json: string }
      >();
      let stopReason = "end_turn";
      try {
        const stream = await client.messages.create(
          {
            model,
            max_tokens: request.max_output_tokens ?? 4096,
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
          },
          { signal: request.signal },
        );
        for await (const event of stream) {
          switch (event.type) {
            case "message_start": {
              const u = event.message.usage;
              input = {
                plain: u.input_tokens ?? 0,
                cacheRead: u.cache_read_input_tokens ?? 0,
                cacheWrite: u.cache_creation_input_tokens ?? 0,
              };
              usage.output_tokens = u.output_tokens ?? 0;
              break;
            }
            case "content_block_start": {
              const block = event.content_block;
              if (block.type === "tool_use") {
                blocks.set(event.index, {
                  id: block.id,
                  name: block.name,
                  json: "",
                });
              } else if (block.type === "text" && block.text) {
                yield { type: "text", text: block.text };
              }
              break;
            }
            case "content_block_delta": {
              const delta = event.delta;
              if (delta.type === "text_delta") {
                yield { type: "text", text: delta.text };
              } else if (delta.type === "input_json_delta") {
                const block = blocks.get(event.index);
                if (block) block.json += delta.partial_json;
              }
              break;
            }
            case "content_block_stop": {
              const block = blocks.get(event.index);
              if (block) {
                blocks.delete(event.index);
                yield {
                  type: "tool_call",
                  call: {
                    id: block.id,
                    name: block.name,
                    arguments: block.json || "{}",
                  },
                };
              }
              break;
            }
            case "message_delta": {
              if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
              const u = event.usage;
              if (u.output_tokens != null) {
                usage.output_tokens = u.output_tokens;
              }
              if (u.input_tokens != null) input.plain = u.input_tokens;
              if (u.cache_read_input_tokens != null) {
                input.cacheRead = u.cache_read_input_tokens;
              }
              if (u.cache_creation_input_tokens != null) {
                input.cacheWrite = u.cache_creation_input_tokens;
              }
              break;
            }
          }
        }
        if (request.signal?.aborted) return;
        usage.input_tokens = input.plain + input.cacheRead + input.cacheWrite;
        if (input.cacheRead) usage.cache_read_tokens = input.cacheRead;
        if (input.cacheWrite) usage.cache_write_tokens = input.cacheWrite;
        yield { type: "usage", usage };
        yield { type: "done", stop_reason: stopReason };
      } catch (error) {
        if (error instanceof sdk.APIUserAbortError || request.signal?.aborted) {
          return;
        }
        yield {
          type: "error",
          error: describeFailure(provider, classifySdkError(sdk, error)),
        };
      }
    },

    async listModels(signal) {
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
    },
  };
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
