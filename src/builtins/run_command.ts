/**
 * The `run_command` tool: a shell command in the workspace, under the shell
 * policy. The command is judged from its parsed syntax (in the policy's own
 * Worker) before the tool's Worker starts; it runs with a minimal environment
 * (no API keys), a timeout and capped output.
 */

import { resolve } from "node:path";
import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { collectBounded } from "../tools/bounded_text.ts";
import type { ShellPolicy } from "../shell/policy.ts";
import { judgeInWorker } from "../shell/judge_thread.ts";
import { commandRange } from "./settings_dependent.ts";

/** Default and longest run time, in seconds. */
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 120;
/** Output kept per stream. */
const STREAM_CAP_CHARS = 5_000;
/** Environment variables the command gets; nothing else (no keys, no tokens). */
export const COMMAND_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "TMPDIR"];

export default defineTool({
  name: "run_command",
  description:
    "Run a shell command (bash) in the workspace and get its exit code, stdout and stderr. Commands pass the user's shell policy first; some need their approval. Timeout 30 s by default, 120 s at most.",
  category: "shell",
  side_effect: "external",
  untrusted_output: true,
  // Whether a command may run is the shell policy's call (see review).
  default_policy: "allow",
  permissions: { read: ["$ROOTS"], run: ["bash"], env: COMMAND_ENV },
  timeout_ms: (args: { timeout?: number }) => ((args.timeout ?? DEFAULT_TIMEOUT_S) + 5) * 1000,
  parameters: z.object({
    command: z.string().min(1).max(10_000).describe("The command line"),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_S).optional().describe(
      "Seconds before it is killed",
    ),
    cwd: z.string().min(1).optional().describe("Directory to run in; the workspace by default"),
  }),
  review({ command, cwd }, settings) {
    const shell = settings.shell as { policy: ShellPolicy; allowlist: string[] };
    const roots = settings.roots as string[];
    // Relative paths in the line are judged from where it will run.
    const dir = cwd && roots[0] ? resolve(roots[0], cwd) : undefined;
    // Judged in the policy's own Worker: nothing a model proposes may hold hob's thread.
    return judgeInWorker(command, { ...shell, roots, cwd: dir });
  },
  review_range: commandRange,
  async run({ command, timeout, cwd }, context) {
    const dir = cwd ? await context.resolvePath(cwd) : context.workspace;
    return await runProcess("bash", ["-c", command], {
      cwd: dir,
      timeoutS: timeout ?? DEFAULT_TIMEOUT_S,
      signal: context.signal,
    });
  },
});

/** Runs a program with a minimal environment, a timeout and capped output, and reports all three streams. */
export async function runProcess(
  program: string,
  args: string[],
  options: { cwd: string; timeoutS: number; signal: AbortSignal; stdin?: string },
): Promise<string> {
  const env: Record<string, string> = {};
  for (const name of COMMAND_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const timeout = AbortSignal.timeout(options.timeoutS * 1000);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      cwd: options.cwd,
      env,
      clearEnv: true,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.any([timeout, options.signal]),
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`'${program}' is not installed`);
    throw error;
  }
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin)).catch(() => {});
    await writer.close().catch(() => {});
  }
  const [stdout, stderr, status] = await Promise.all([
    collectBounded(child.stdout, STREAM_CAP_CHARS),
    collectBounded(child.stderr, STREAM_CAP_CHARS),
    child.status,
  ]);
  const lines = [
    timeout.aborted
      ? `timed out after ${options.timeoutS} s and was killed`
      : `exit code: ${status.code}${status.signal ? ` (signal ${status.signal})` : ""}`,
  ];
  if (stdout.total > 0) lines.push(`--- stdout ---\n${stdout}`);
  if (stderr.total > 0) lines.push(`--- stderr ---\n${stderr}`);
  return lines.join("\n");
}
