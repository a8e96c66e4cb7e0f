/** Opening the runtime of the home a command names (`--home`, HOB_HOME, ~/.hob). */

import { resolveHome } from "../home/home.ts";
import { openRuntime, type Runtime } from "../runtime/runtime.ts";
import type { ParsedArgs } from "./command.ts";

/** The home a command works on. */
export function homeOf(parsed: ParsedArgs): string {
  return resolveHome(parsed.values.home as string | undefined);
}

/** Opens the home a command names, creating it on first use; `log` hears of MCP servers. */
export function openHome(parsed: ParsedArgs, log?: (line: string) => void): Promise<Runtime> {
  return openRuntime({ home: homeOf(parsed), log });
}
