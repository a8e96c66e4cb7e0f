/**
 * Which exchanges run in a tool process rather than a Worker inside hob: every
 * one that carries code hob did not write. That is decided here, from the
 * message alone, so no caller can forget it: a user tool, a skill or a skill's
 * script (by their ref), the inspection of one (`describe`), and the built-in
 * tools whose argument is code (run_code).
 */

import type { ToSandbox } from "./protocol.ts";

/**
 * Built-in tools that run code they are given, not code of hob's: they run
 * only in a tool process, and the tool process knows no other built-in tool
 * (src/builtins/process_tools.ts `PROCESS_TOOLS`). Names only, so the hob
 * process's routing loads none of their code.
 */
export const FOREIGN_CODE_TOOLS: ReadonlySet<string> = new Set(["run_code"]);

/**
 * Whether `message` starts an exchange that must run in a tool process.
 *
 * @example
 * ```ts
 * runsInProcess({ type: "call", tool: { kind: "builtin", name: "run_code" }, args, context }); // true
 * runsInProcess({ type: "call", tool: { kind: "builtin", name: "read_file" }, args, context }); // false
 * ```
 */
export function runsInProcess(message: ToSandbox): boolean {
  if (message.type === "describe") return true;
  if (message.type !== "call") return false;
  return message.tool.kind !== "builtin" || FOREIGN_CODE_TOOLS.has(message.tool.name);
}

/** Whether the built-in tool `name` runs code it is given (and so only in a tool process). */
export function runsForeignCode(name: string): boolean {
  return FOREIGN_CODE_TOOLS.has(name);
}
