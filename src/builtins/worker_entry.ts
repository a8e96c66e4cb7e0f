/// <reference lib="deno.worker" />
/**
 * The entry of every tool Worker: hob's own built-in tools, each in a Worker
 * holding only the permissions the spawner gave it, one call per Worker (the
 * hob process terminates it after the call). Code hob did not write — user
 * tools, skills, run_code's argument — never runs here but in a tool process
 * (src/sandbox/child.ts), so it cannot exit, starve or crash hob; this entry
 * refuses it.
 */

import { BUILTIN_TOOLS } from "./catalog.ts";
import { runsForeignCode } from "../sandbox/routing.ts";
import { serveTools, workerPort } from "../sandbox/runner.ts";

export type { SkillApi } from "../sandbox/runner.ts";

serveTools(workerPort(), {
  builtins: new Map(
    BUILTIN_TOOLS.filter((tool) => !runsForeignCode(tool.name)).map((tool) => [tool.name, tool]),
  ),
  foreignCode: false,
});
