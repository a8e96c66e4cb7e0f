/** The `run_python` tool: Python code in a python3 subprocess, under the shell policy. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { digest, type ShellPolicy } from "../shell/policy.ts";
import { COMMAND_ENV, runProcess } from "./run_command.ts";
import { pythonRange } from "./settings_dependent.ts";

/** Default and longest run time, in seconds. */
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 60;

export default defineTool({
  name: "run_python",
  description:
    "Run Python 3 code (given as a script) in a subprocess in the workspace; returns exit code, stdout and stderr. Subject to the user's shell policy. 60 s at most.",
  category: "code",
  side_effect: "external",
  untrusted_output: true,
  default_policy: "allow",
  permissions: { read: ["$ROOTS"], run: ["python3"], env: COMMAND_ENV },
  timeout_ms: (args: { timeout?: number }) => ((args.timeout ?? DEFAULT_TIMEOUT_S) + 5) * 1000,
  parameters: z.object({
    code: z.string().min(1).max(200_000).describe("The Python script"),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_S).optional(),
  }),
  async review({ code }, settings) {
    const shell = settings.shell as { policy: ShellPolicy };
    // An "always" covers this exact script only: any other code may do anything.
    const shape = `python3[exec] #${await digest(code)}`;
    // Python code cannot be judged by its syntax the way a command can: it asks, unless shell is denied.
    if (shell.policy === "deny") {
      return { decision: "deny", reason: "the shell policy is 'deny'", shape };
    }
    if (shell.policy === "allowlist") {
      return {
        decision: "deny",
        reason: "the shell policy is 'allowlist', which never runs arbitrary code",
        shape,
      };
    }
    return {
      decision: "ask",
      reason: "runs Python code, which can do anything your user account can",
      shape,
    };
  },
  review_range: pythonRange,
  async run({ code, timeout }, context) {
    const python = (context.settings.python as string | undefined) ?? "python3";
    return await runProcess(python, ["-"], {
      cwd: context.workspace,
      timeoutS: timeout ?? DEFAULT_TIMEOUT_S,
      signal: context.signal,
      stdin: code,
    });
  },
});
