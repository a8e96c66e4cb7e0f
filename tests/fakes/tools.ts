/**
 * An in-process tool registry for agent-loop tests: tools are plain
 * functions, calls are recorded, and a tool may raise events (an approval
 * request) while it runs. The real registry, with Workers, is tested in
 * tests/tools. `satisfies ToolRegistryPort` keeps it from drifting.
 */

import type { ToolCallContext, ToolRegistryPort } from "../../src/core/ports.ts";
import type { ToolCall, ToolResult, ToolSpec } from "../../src/core/types.ts";
import { hobWrote, isMarked, storedText } from "../../src/core/untrusted.ts";

/** What a fake tool returns: plain text, which the fake registry passes on as hob's own (or as labelled, when it already is). */
export interface FakeResult {
  content: string;
  is_error: boolean;
  stop?: boolean;
}

/** A fake tool: its spec and what a call returns. */
export interface FakeTool {
  spec: ToolSpec;
  run(args: Record<string, unknown>, context: ToolCallContext): Promise<FakeResult> | FakeResult;
}

/** A get_time that answers from a fixed clock. */
export function fakeGetTime(now: Date): FakeTool {
  return {
    spec: {
      name: "get_time",
      description: "Get the current date and time.",
      category: "time",
      parameters: { type: "object", properties: { timezone: { type: "string" } } },
    },
    run: (args) => ({
      content: `${String(args.timezone ?? "UTC")}\nUTC: ${now.toISOString()}`,
      is_error: false,
    }),
  };
}

/** Creates the fake registry. */
export function fakeTools(...tools: FakeTool[]) {
  const calls: { call: ToolCall; context: ToolCallContext }[] = [];
  const registry = {
    calls,
    specs: (): ToolSpec[] => tools.map((tool) => tool.spec),
    async execute(call: ToolCall, context: ToolCallContext): Promise<ToolResult> {
      calls.push({ call, context });
      const tool = tools.find((t) => t.spec.name === call.name);
      if (!tool) return { content: hobWrote(`Unknown tool '${call.name}'`), is_error: true };
      let args: Record<string, unknown>;
      try {
        args = call.arguments ? JSON.parse(call.arguments) : {};
      } catch {
        return { content: hobWrote("not valid JSON"), is_error: true };
      }
      const result = await tool.run(args, context);
      const content = isMarked(result.content)
        ? storedText(result.content)
        : hobWrote(result.content);
      return { ...result, content };
    },
  } satisfies ToolRegistryPort & { calls: unknown[] };
  return registry;
}
