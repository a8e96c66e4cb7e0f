/**
 * What a tool process serves (src/sandbox/child.ts runs it): code from
 * outside, and as built-in tools only those whose argument is code
 * (src/sandbox/routing.ts names them; a test holds the two lists equal).
 */

import runCode from "./run_code.ts";
import type { ToolDefinition } from "../sandbox/definition.ts";
import type { ServeOptions } from "../sandbox/runner.ts";

/** The tools of a tool process. */
export const PROCESS_TOOLS: ServeOptions = {
  // deno-lint-ignore no-explicit-any
  builtins: new Map(([runCode] as ToolDefinition<any>[]).map((tool) => [tool.name, tool])),
  foreignCode: true,
};
