/**
 * The `run_skill_script` tool: a TypeScript or JavaScript script of an
 * installed Agent Skill, run in a tool process of its own with only what the
 * owner granted at install — its skill's folder and the workspace to read,
 * the workspace to write, the hosts granted — never hob's permissions. The
 * hob process checks the skill and starts the process (the `skills.script`
 * service, src/runtime/skill_scripts.ts); this Worker only asks and reports.
 * A Python or shell script is refused: hob cannot hold it to a grant, and
 * run_python or run_command ask the user each time.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

/** Default and longest run time, in seconds (as run_command's). */
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 120;
/**
 * Time the call gets beyond the script's: starting its tool process on a
 * busy machine and checking the skill's files. The script's own time is kept
 * by the hob process, which kills it.
 */
const START_MARGIN_S = 40;

export default defineTool({
  name: "run_skill_script",
  description:
    "Run a TypeScript or JavaScript script of an installed skill (e.g. scripts/fill.ts) in a sandbox holding only what the user granted the skill at install: read its own folder and the workspace, write the workspace, reach the hosts granted. The script gets `args` as Deno.args, runs in the workspace, reads `stdin` if given; you get its exit code, stdout and stderr. Python and shell scripts cannot run here. Timeout 30 s by default, 120 s at most.",
  category: "meta",
  // It writes the workspace; the hosts it may reach the owner granted at install.
  side_effect: "local",
  untrusted_output: true,
  services: ["skills"],
  timeout_ms: (args: { timeout?: number }) =>
    ((args.timeout ?? DEFAULT_TIMEOUT_S) + START_MARGIN_S) * 1000,
  max_output_chars: 12_000,
  parameters: z.object({
    skill: z.string().min(1).max(64).describe("The skill's name"),
    script: z.string().min(1).max(1_000).describe(
      "The script's path inside the skill, e.g. scripts/fill.ts",
    ),
    args: z.array(z.string().max(10_000)).max(200).default([]).describe(
      "Its command-line arguments (Deno.args)",
    ),
    stdin: z.string().max(200_000).optional().describe("What it reads from standard input"),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_S).optional().describe(
      "Seconds before it is killed",
    ),
  }),
  review({ skill, script }) {
    // An "always" holds for this script of this skill only.
    return { shape: `${skill}/${script.replace(/^\.\//, "")}` };
  },
  async run({ skill, script, args, stdin, timeout }, context) {
    const outcome = await context.services.call("skills.script", {
      name: skill,
      path: script,
      args,
      stdin,
      timeout: timeout ?? DEFAULT_TIMEOUT_S,
    });
    const lines = [`exit code: ${outcome.exit_code}`];
    if (outcome.stdout) lines.push(`--- stdout ---\n${outcome.stdout}`);
    if (outcome.stderr) lines.push(`--- stderr ---\n${outcome.stderr}`);
    return lines.join("\n");
  },
});
