/**
 * Claude Code's CLI as a provider: `claude -p --output-format json` run as a
 * subprocess, the conversation on stdin, the system prompt as a flag. Claude
 * Code runs its own tools, so hob's are not offered; the reply arrives whole.
 * CLAUDECODE is removed from the child's environment, or a hob started from
 * inside Claude Code would be refused as a nested session.
 */

import type { ChatMessage, LlmEvent } from "../core/types.ts";
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
      const env = Deno.env.toObject();
      delete env.CLAUDECODE;
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(command, {
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
        if (error instanceof Deno.errors.NotFound) {
          yield {
            type: "error",
            error: describeFailure(provider, {
              kind: "missing_command",
              command,
            }),
          };
          return;
        }
        throw error;
      }
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(toPrompt(request.messages)))
        .catch(() => {/* the CLI exited early; its status says why */});
      await writer.close().catch(() => {});
      const output = await child.output().catch(() => null);
      if (request.signal?.aborted) return;
      const stdout = new TextDecoder().decode(
        output?.stdout ?? new Uint8Array(),
      );
      const stderr = new TextDecoder().decode(
        output?.stderr ?? new Uint8Array(),
      );
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
      const u = parsed.usage ?? {};
      const cacheRead = u.cache_read_input_tokens ?? 0;
      const cacheWrite = u.cache_creation_input_tokens ?? 0;
      yield {
        type: "usage",
        usage: {
          input_tokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
          output_tokens: u.output_tokens ?? 0,
          ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
          ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
        },
      };
      yield { type: "done", stop_reason: "end_turn" };
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
