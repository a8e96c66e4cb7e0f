/**
 * Claude Code's CLI as a provider: `claude -p --output-format stream-json` run
 * as a subprocess, the conversation on stdin, the system prompt as a flag.
 * Claude Code runs its own tools, so hob's are not offered; the reply arrives
 * whole, from the last line (`"type": "result"`). The lines before it (partial
 * messages, its tools' progress) only show that the CLI is alive: one that
 * says nothing for `idle_timeout_ms` is stopped (idle.ts). CLAUDECODE is
 * removed from the child's environment, or a hob started from inside Claude
 * Code would be refused as a nested session.
 */

import type { ChatMessage, LlmEvent, LlmRequest, Usage } from "../core/types.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { describeFailure } from "./failure.ts";
import { idleLines, StreamIdleError } from "./idle.ts";
import type { ModelInfo, ProviderAdapter } from "./provider.ts";

/** The model aliases the CLI accepts. */
const CLAUDE_CLI_MODELS = ["sonnet", "opus", "haiku"];
/** How much of the CLI's stderr an error message quotes. */
const STDERR_TAIL_CHARS = 400;
/** How long a CLI told to stop (SIGTERM) may take to end its own tools before it is killed. */
const STOP_GRACE_MS = 5_000;

interface ClaudeResult {
  type?: string;
  subtype?: string;
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
      const run = await runCli(child, toPrompt(request.messages), provider.idle_timeout_ms);
      if (request.signal?.aborted) return;
      yield* resultEvents(provider, command, run);
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
        "stream-json",
        // stream-json needs --verbose; partial messages make a long answer show it is alive.
        "--verbose",
        "--include-partial-messages",
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

/** What one run of the CLI left: how it exited, its result line, its last words. */
interface CliRun {
  /** Its exit; null when it could not be read. */
  status: Deno.CommandStatus | null;
  /** The `"type": "result"` line, when one came. */
  result?: ClaudeResult;
  /** The last line it printed, for an error message when no result came. */
  lastLine: string;
  stderr: string;
  /** Set when it printed nothing for this long and was stopped. */
  quietMs?: number;
}

/** Writes the prompt to the CLI's stdin, reads its lines until it exits or goes quiet, and waits for it. */
async function runCli(child: Deno.ChildProcess, prompt: string, idleMs: number): Promise<CliRun> {
  const writing = (async () => {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(prompt))
      .catch(() => {/* the CLI exited early; its status says why */});
    await writer.close().catch(() => {});
  })();
  const stderr = new Response(child.stderr).text().catch(() => "");
  const run: CliRun = { status: null, lastLine: "", stderr: "" };
  try {
    for await (const line of idleLines(child.stdout, idleMs)) {
      if (!line.trim()) continue;
      run.lastLine = line;
      const parsed = parseLine(line);
      if (parsed?.type === "result") run.result = parsed;
    }
  } catch (error) {
    if (error instanceof StreamIdleError) run.quietMs = error.idleMs;
    await stop(child);
  }
  await writing;
  run.status = await child.status.catch(() => null);
  run.stderr = await stderr;
  return run;
}

/** One line of stream-json, or undefined when it is not JSON. */
function parseLine(line: string): ClaudeResult | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Asks the CLI to stop (it ends its own tools), and kills it when it does not in time. */
async function stop(child: Deno.ChildProcess): Promise<void> {
  const signal = (name: Deno.Signal) => {
    try {
      child.kill(name);
    } catch { /* it has exited */ }
  };
  signal("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(resolve, STOP_GRACE_MS, "late"));
  const ended = await Promise.race([child.status.then(() => "ended" as const), late]);
  clearTimeout(timer);
  if (ended === "late") signal("SIGKILL");
}

/** The CLI's result as hob's events: the text, the usage and `done`, or one error. */
function* resultEvents(
  provider: ProviderConfig,
  command: string,
  run: CliRun,
): Generator<LlmEvent> {
  if (run.quietMs !== undefined) {
    yield {
      type: "error",
      error: describeFailure(provider, { kind: "idle", idleMs: run.quietMs }),
    };
    return;
  }
  const { status, result, stderr, lastLine } = run;
  if (!status?.success || !result || result.is_error) {
    const said = result?.result ?? (stderr.trim() || result?.subtype || lastLine.trim());
    yield {
      type: "error",
      error: describeFailure(provider, {
        kind: "other",
        detail: `'${command}' exited with ${status?.code ?? "an error"}${
          said ? `: ${said.slice(-STDERR_TAIL_CHARS)}` : ""
        }`,
      }),
    };
    return;
  }
  if (result.result) yield { type: "text", text: result.result };
  yield { type: "usage", usage: usageOf(result.usage ?? {}) };
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
