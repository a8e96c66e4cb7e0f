/**
 * The `skills.script` service run_skill_script calls: an Agent Skill's
 * script, run in a tool process of its own with exactly what the owner
 * granted at install. The app checks the skill is active and hands over the
 * bytes whose hash it just checked (`app.skills.script`); this file turns the
 * install into the process's permissions and starts it. The hob process never
 * imports or evaluates the script: the spawner routes a script to a tool
 * process by its ref (src/sandbox/routing.ts).
 */

import { z } from "zod";
import type { SkillActions } from "../app/skills.ts";
import type { SandboxPermissions } from "../sandbox/permissions.ts";
import type { ScriptCall, ScriptOutcome } from "../sandbox/skill_script.ts";
import { scriptModuleUrl } from "../sandbox/skill_script.ts";
import type { HobServices } from "../tools/registry.ts";
import type { Toolbox } from "./toolbox.ts";
import { service } from "./service_params.ts";

/** Characters kept of each of a script's stdout and stderr: as run_command keeps. */
const STREAM_CAP_CHARS = 5_000;
/** A script's time when none is asked for, and the most it may have: as run_command's. */
export const SCRIPT_TIMEOUT_S = { default: 30, max: 120 };

/**
 * The params of a script's run: the service's own to parse; the skill and the
 * file it names (`name`, `path`) the app's script action checks.
 */
const scriptParams = z.object({
  name: z.string(),
  path: z.string(),
  args: z.array(z.string()).default([]),
  stdin: z.string().optional(),
  timeout: z.number().int().min(1).max(SCRIPT_TIMEOUT_S.max).default(SCRIPT_TIMEOUT_S.default),
});

/** What comes back from the tool process: the script's own, so checked like any outside data. */
const outcomeShape = z.object({
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
});

/**
 * The permissions of a skill's script, and nothing else: read its own folder
 * and the workspace, write the workspace, reach the hosts granted at install.
 * No environment, no programs, no FFI, no system information.
 *
 * @example
 * ```ts
 * scriptPermissions("/h/skills/pdf", "/h/workspace", ["api.example.com"]);
 * // { read: ["/h/skills/pdf", "/h/workspace"], write: ["/h/workspace"], net: ["api.example.com"], env: false, run: false }
 * ```
 */
export function scriptPermissions(
  folder: string,
  workspace: string,
  hosts: string[],
): SandboxPermissions {
  return {
    read: [folder, workspace],
    write: [workspace],
    net: hosts.length > 0 ? [...hosts] : false,
    env: false,
    run: false,
  };
}

/**
 * The `skills.script` service over the skill actions and the toolbox's spawner.
 *
 * @example
 * ```ts
 * Object.assign(services, skillScriptServices(app.skills, toolbox, () => new Date()));
 * ```
 */
export function skillScriptServices(
  skills: Pick<SkillActions, "script">,
  toolbox: Pick<Toolbox, "spawner" | "scope">,
  now: () => Date,
): Pick<HobServices, "skills.script"> {
  return {
    "skills.script": service(scriptParams, async (params, context): Promise<ScriptOutcome> => {
      const { name, path, args, stdin, timeout } = params;
      const script = await skills.script({ name, path });
      const { scope } = toolbox;
      const call: ScriptCall = {
        args,
        stdin,
        cwd: scope.workspace,
        file: script.file,
        cap: STREAM_CAP_CHARS,
      };
      const outcome = await toolbox.spawner.exchange(
        scriptPermissions(script.folder, scope.workspace, script.hosts),
        {
          type: "call",
          tool: {
            kind: "script",
            url: scriptModuleUrl(script.code, script.file, script.language),
          },
          args: call,
          context: {
            conversation_id: context.conversation_id ?? "",
            now: now().toISOString(),
            workspace: scope.workspace,
            roots: [scope.workspace],
            home: scope.home,
            settings: {},
            max_output_chars: STREAM_CAP_CHARS * 3,
          },
        },
        { timeoutMs: timeout * 1000, signal: context.signal },
      );
      if (!outcome.ok) throw new Error(`${script.path} ${outcome.error}`);
      const message = outcome.message;
      if (message.type !== "result") throw new Error(`${script.path} gave no result`);
      if (!message.ok) throw new Error(`${script.path} could not run: ${message.error}`);
      return parseOutcome(message.content, script.path);
    }),
  };
}

/** The tool process's report, or an error saying it made none that holds. */
function parseOutcome(content: string, path: string): ScriptOutcome {
  try {
    return outcomeShape.parse(JSON.parse(content));
  } catch {
    throw new Error(`${path} ended without a report of its run`);
  }
}
