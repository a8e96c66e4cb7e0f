/**
 * How a tool process is told what to be: the arguments after its entry, shared
 * by the hob process that starts it (process.ts) and the process (child.ts).
 */

import type { SandboxPermissions } from "./permissions.ts";

/** The hidden `hob` command a compiled hob starts its tool processes with. */
export const SANDBOX_COMMAND = "__sandbox";
/** The hidden `hob` command a compiled hob starts its document processes with (src/memory/documents.ts). */
export const DOCUMENTS_COMMAND = "__documents";

/** The exit code of a process stopped by its memory cap. */
export const MEMORY_CAP_EXIT_CODE = 86;

/** How a tool process runs its tool. */
export type ChildOptions =
  /** On its main thread, started with exactly the tool's `--allow-*` flags. */
  | { mode: "direct" }
  /** In a Worker with exactly `permissions`, its memory watched from the main thread. */
  | { mode: "worker"; permissions: SandboxPermissions; memoryCapMb: number };

/**
 * The arguments a tool process is started with, after its entry.
 *
 * @example
 * ```ts
 * childArgs({ mode: "direct" }); // ["--direct"]
 * ```
 */
export function childArgs(options: ChildOptions): string[] {
  if (options.mode === "direct") return ["--direct"];
  return [
    "--worker",
    `--permissions=${JSON.stringify(options.permissions)}`,
    `--memory-cap-mb=${options.memoryCapMb}`,
  ];
}

/**
 * Reads {@linkcode childArgs} back; throws on anything else.
 *
 * @example
 * ```ts
 * parseChildArgs(["--direct"]); // { mode: "direct" }
 * ```
 */
export function parseChildArgs(args: string[]): ChildOptions {
  if (args.length === 1 && args[0] === "--direct") return { mode: "direct" };
  const value = (name: string) =>
    args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const permissions = value("permissions");
  const memoryCapMb = Number(value("memory-cap-mb"));
  if (args[0] !== "--worker" || !permissions || !(memoryCapMb > 0)) {
    throw new Error(`a tool process takes --direct or --worker …, not: ${args.join(" ")}`);
  }
  return { mode: "worker", permissions: JSON.parse(permissions), memoryCapMb };
}
