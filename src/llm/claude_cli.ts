/**
 * Claude Code's CLI as a provider: `claude -p --output-format json` run as a
 * subprocess, the conversation on stdin, the system prompt as a flag. Claude
 * Code runs its own tools, so hob's are not offered; the reply arrives whole.
 * CLAUDECODE is removed from the child's environment, or a hob started from
 * inside Claude Code would be refused as a nested session.
 */

import type { ChatMessage, LlmEvent, LlmRequest, Usage } from "../core/types.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { describeFailure } from "./failure.ts";
import type { ModelInfo, ProviderAdapter } from "./provider.ts";

/** The model aliases the CLI accepts. */
const CLAUDE_CLI_MODELS = ["sonnet", "opus", "haiku"];
/** How much of the CLI's stderr an error message quotes. */
const STDERR_TAIL_CHARS = 400;

interface ClaudeResult {
  type?: string;
  is_error?: boolean;
  result?: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
}

/**
 * Creates the adapter for the Claude Code CLI.
 *
 * @example
 * ```ts
 * const claude = createClaudeCliProvider(config.providers["claude-cli"]);
 * ```
 */
export function createClaudeCliProvider(
  provider: ProviderConfig,
): ProviderAdapter {
  const command = provider.command ?? "claude";
  return {
    name: provider.name,
    async *stream(model, request): AsyncGenerator<LlmEvent> {
      if (request.messages.some((m) => m.role === "user" && m.images?.length)) {
        yield {
          type: "error",
          error: {
            code: "unsupported",
            message:
              `provider '${provider.name}' cannot take images — use a model with vision through another provider`,
          },
        };
        return;
      }
      const child = spawnCli(command, model, request);
      if (!child) {
        yield {
          type: "error",
          error: describeFailure(provider, { kind: "missing_command", command }),
        };
        return;
      }
      const output = await runCli(child, toPrompt(request.messages));
      if (request.signal?.aborted) return;
      yield* resultEvents(provider, command, output);
    },

    listModels(): Promise<ModelInfo[]> {
      const names = provider.models.length > 0 ? provider.models : CLAUDE_CLI_MODELS;
      if (!onPath(command)) {
        return Promise.reject(new Error(`'${command}' is not installed`));
      }
      return Promise.resolve(names.map((name) => ({
        id: `${provider.name}/${name}`,
        provider: provider.name,
        name,
      })));
    },
  };
}

/**
 * Starts `claude -p` for one answer, without CLAUDECODE in its environment;
 * null when the program is not found.
 */
function spawnCli(
  command: string,
  model: string,
  request: LlmRequest,
): Deno.ChildProcess | null {
  const env = Deno.env.toObject();
  delete env.CLAUDECODE;
  try {
    return new Deno.Command(command, {
      args: [
        "-p",
        "--output-format",
        "json",
        "--model",
        model,
        "--system-prompt",
        request.system,
      ],
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal: request.signal,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Writes the prompt to the CLI's stdin and waits for it to exit; null when it could not be read. */
async function runCli(
  child: Deno.ChildProcess,
  prompt: string,
): Promise<Deno.CommandOutput | null> {
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(prompt))
    .catch(() => {/* the CLI exited early; its status says why */});
  await writer.close().catch(() => {});
  return await child.output().catch(() => null);
}

/** The CLI's JSON result as hob's events: the text, the usage and `done`, or one error. */
function* resultEvents(
  provider: ProviderConfig,
  command: string,
  output: Deno.CommandOutput | null,
): Generator<LlmEvent> {
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output?.stdout ?? new Uint8Array());
  const stderr = decoder.decode(output?.stderr ?? new Uint8Array());
  let parsed: ClaudeResult | undefined;
  try {
    parsed = JSON.parse(stdout);
  } catch { /* reported below */ }
  if (!output?.success || !parsed || parsed.is_error) {
    const said = parsed?.result ?? (stderr.trim() || stdout.trim());
    yield {
      type: "error",
      error: describeFailure(provider, {
        kind: "other",
        detail: `'${command}' exited with ${output?.code ?? "an error"}${
          said ? `: ${said.slice(-STDERR_TAIL_CHARS)}` : ""
        }`,
      }),
    };
    return;
  }
  if (parsed.result) yield { type: "text", text: parsed.result };
  yield { type: "usage", usage: usageOf(parsed.usage ?? {}) };
  yield { type: "done", stop_reason: "end_turn" };
}

/** Usage with the input counted whole: plain, read from the cache and written to it. */
function usageOf(u: NonNullable<ClaudeResult["usage"]>): Usage {
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const cacheWrite = u.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
    output_tokens: u.output_tokens ?? 0,
    ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
  };
}

/** The conversation as one prompt: earlier messages as a transcript, then the latest. */
export function toPrompt(messages: ChatMessage[]): string {
  const last = messages.at(-1);
  const latest = last?.role === "user" ? last.content : "";
  const earlier = last?.role === "user" ? messages.slice(0, -1) : messages;
  if (earlier.length === 0) return latest;
  const lines = earlier.map((message) => {
    if (message.role === "tool") {
      return `[Result of ${message.name}]: ${message.content}`;
    }
    if (message.role === "user") return `User: ${message.content}`;
    const calls = (message.tool_calls ?? []).map((c) => `[Called ${c.name} ${c.arguments}]`);
    return `Assistant: ${[message.content, ...calls].filter(Boolean).join("\n")}`;
  });
  return `# Conversation so far\n\n${lines.join("\n\n")}\n\n# Latest message\n\n${latest}`;
}

function onPath(command: string): boolean {
  if (command.includes("/")) return isFile(command);
  const path = Deno.env.get("PATH") ?? "";
  return path.split(":").some((dir) => dir && isFile(`${dir}/${command}`));
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
