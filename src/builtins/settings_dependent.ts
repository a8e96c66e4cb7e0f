/**
 * The parts of built-in tools that depend on hob.yaml's settings and are
 * needed before a tool's module loads: the permissions `hob tool list` shows
 * and the policy it says calls get. The tool modules use these same functions
 * (tests/builtins/manifest_test.ts checks), so listing a tool never loads it.
 * Imports nothing heavy: it is on the path of every turn's tool list.
 */

import type { ReviewRange, ToolPermissions } from "../sandbox/definition.ts";
import type { SettingsDependent } from "../tools/builtin_meta.ts";
import type { ShellPolicy } from "../shell/policy.ts";

/** The `email:` section of hob.yaml, as email_file gets it. */
export interface EmailSettings {
  smtp: { host: string; port: number; secure: boolean; user?: string; password?: string };
  from: string;
  to?: string;
}

/** email_file reaches only the configured SMTP server, and nothing until one is configured. */
export function emailPermissions(settings: Record<string, unknown>): ToolPermissions {
  const email = settings.email as EmailSettings | undefined;
  return {
    read: ["$ROOTS"],
    net: email ? [`${email.smtp.host}:${email.smtp.port}`] : false,
  };
}

/**
 * What `judgeCommand` (shell/policy.ts) can decide under a shell policy:
 * nothing runs under `deny`; otherwise allowlisted commands run as configured
 * and the rest are denied (`allowlist`) or asked about (`ask`).
 *
 * @example
 * ```ts
 * shellRange("ask"); // { passes: "allowlist", otherwise: "ask" }
 * ```
 */
export function shellRange(policy: ShellPolicy): ReviewRange {
  if (policy === "deny") return { otherwise: "deny" };
  return { passes: "allowlist", otherwise: policy === "allowlist" ? "deny" : "ask" };
}

/** run_command under the shell policy: the allowlist passes, the rest asks or is denied. */
export function commandRange(settings: Record<string, unknown>): ReviewRange {
  return shellRange((settings.shell as { policy: ShellPolicy }).policy);
}

/** Code is never judged line by line: it asks, or runs not at all (deny, allowlist). */
export function pythonRange(settings: Record<string, unknown>): ReviewRange {
  return {
    otherwise: (settings.shell as { policy: ShellPolicy }).policy === "ask" ? "ask" : "deny",
  };
}

/** Every built-in with a settings-dependent part; the tool modules use the same functions. */
export const SETTINGS_DEPENDENT: Record<string, SettingsDependent> = {
  email_file: { permissions: emailPermissions },
  run_command: { review_range: commandRange },
  run_python: { review_range: pythonRange },
};
