/**
 * The tool registry: offers the tools' schemas to the model and runs its calls.
 * Arguments are parsed and validated first; unknown tools, bad arguments,
 * timeouts and exceptions all come back as `is_error` results the model can
 * correct, never as exceptions. Output is capped, head and tail kept.
 */

import { z } from "zod";
import type { ToolCallContext, ToolRegistryPort } from "../core/ports.ts";
import type { ToolCall, ToolResult, ToolSpec } from "../core/types.ts";
import type { ToolDefinition } from "./definition.ts";

/** Default cap on a tool's output, so one call cannot flood the context window. */
export const DEFAULT_OUTPUT_CAP_CHARS = 10_000;
/** Default time one tool call may take. */
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** Options for {@linkcode createToolRegistry}. */
export interface ToolRegistryOptions {
  /** @default {10_000} */
  outputCapChars?: number;
  /** The clock tools read; defaults to the system clock. */
  now?: () => Date;
}

/**
 * Creates a registry over `tools`.
 *
 * @example
 * ```ts
 * const registry = createToolRegistry([getTime]);
 * await registry.execute({ id: "1", name: "get_time", arguments: "{}" }, { conversation_id: "c" });
 * ```
 */
export function createToolRegistry(
  // deno-lint-ignore no-explicit-any
  tools: ToolDefinition<any>[],
  options: ToolRegistryOptions = {},
): ToolRegistryPort {
  const { outputCapChars = DEFAULT_OUTPUT_CAP_CHARS, now = () => new Date() } = options;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const specs: ToolSpec[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    category: tool.category,
    parameters: toParameters(tool.parameters),
  }));

  return {
    specs: () => specs,

    async execute(
      call: ToolCall,
      context: ToolCallContext,
    ): Promise<ToolResult> {
      const tool = byName.get(call.name);
      if (!tool) {
        return failure(
          `Unknown tool '${call.name}'. Available tools: ${[...byName.keys()].join(", ")}.`,
        );
      }
      let raw: unknown;
      try {
        raw = call.arguments.trim() ? JSON.parse(call.arguments) : {};
      } catch (error) {
        return failure(
          `The arguments for ${call.name} are not valid JSON (${
            (error as Error).message
          }). Send a JSON object.`,
        );
      }
      const parsed = tool.parameters.safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) =>
          `${issue.path.length ? issue.path.join(".") : "arguments"}: ${issue.message}`
        );
        return failure(
          `Invalid arguments for ${call.name}: ${problems.join("; ")}`,
        );
      }

      const timeoutMs = tool.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const output = await Promise.race([
          Promise.resolve(tool.run(parsed.data, {
            conversation_id: context.conversation_id,
            signal,
            now,
          })),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new Error(
                    `${call.name} timed out after ${timeoutMs / 1000} s`,
                  ),
                ),
              timeoutMs,
            );
          }),
        ]);
        return {
          content: capOutput(String(output ?? ""), outputCapChars),
          is_error: false,
        };
      } catch (error) {
        return failure(
          capOutput((error as Error)?.message ?? String(error), outputCapChars),
        );
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Keeps the head and tail of an over-long output with a marker between them.
 *
 * @example
 * ```ts
 * capOutput("x".repeat(20_000), 10_000).length; // about 10_000
 * ```
 */
export function capOutput(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const omitted = text.length - cap;
  const marker = `\n\n[… ${omitted} characters omitted …]\n\n`;
  const keep = Math.max(0, cap - marker.length);
  const head = Math.ceil(keep * 0.6);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}

function failure(content: string): ToolResult {
  return { content, is_error: true };
}

function toParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}
