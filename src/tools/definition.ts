/**
 * What a tool is: plain data plus a `run` function. The registry turns these
 * into the schemas models see and runs them; a tool never sees the agent.
 */

import type { z } from "zod";

/** What a tool's `run` gets besides its arguments. */
export interface ToolContext {
  conversation_id: string;
  signal: AbortSignal;
  /** The time, from the agent's clock, so tests can fix it. */
  now(): Date;
}

/**
 * A tool. `parameters` validates the model's arguments before `run` sees them;
 * `run` returns the text the model reads, or throws an Error whose message the
 * model reads as a tool error.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  category: string;
  parameters: z.ZodType<Args>;
  /**
   * How long one call may take.
   * @default {30_000}
   */
  timeout_ms?: number;
  run(args: Args, context: ToolContext): Promise<string> | string;
}

/** Declares a tool with its argument type inferred from `parameters`. */
export function defineTool<Args>(
  tool: ToolDefinition<Args>,
): ToolDefinition<Args> {
  return tool;
}
