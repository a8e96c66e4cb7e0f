/**
 * What a hob process asked Deno for that its flags do not grant. Deno writes
 * every permission check of a process to the file `DENO_AUDIT_PERMISSIONS`
 * names (one JSON line each, granted or not); a check the flags do not cover
 * was refused — or, where the flags lack `--no-prompt`, would have stopped hob
 * at a terminal prompt. A library that catches the refusal (nodemailer asking
 * for the network interfaces, say) hides it from every other test; this one
 * sees it.
 */

import { fileURLToPath } from "node:url";

/** One permission check, as Deno's audit file records it. */
export interface Access {
  permission: string;
  /** What was asked for: a path, host, variable, program or sys name; null for all of them. */
  value: string | null;
}

/**
 * Checks hob's flags refuse on purpose, each with why it is harmless: the
 * asker catches the refusal and does the same without it. Anything else
 * refused fails the test that started hob.
 */
export const REFUSED_ON_PURPOSE: readonly { access: Access; why: string }[] = [
  {
    access: { permission: "sys", value: "networkInterfaces" },
    why: "nodemailer reads the interface table to skip an address family the machine lacks; " +
      "refused, it resolves both (src/channels/email.ts sends through it)",
  },
];

/** Every `--allow-*` grant of `flags`: everything (true) or a list of values. */
function grantsOf(flags: string[]): Map<string, true | string[]> {
  const grants = new Map<string, true | string[]>();
  for (const flag of flags) {
    if (flag === "-A" || flag === "--allow-all") {
      for (const name of ["read", "write", "net", "env", "run", "sys", "ffi", "import"]) {
        grants.set(name, true);
      }
      continue;
    }
    const match = /^--allow-([a-z]+)(?:=(.*))?$/.exec(flag);
    if (match) grants.set(match[1], match[2] === undefined ? true : match[2].split(","));
  }
  return grants;
}

function covers(grant: string[], access: Access & { value: string }): boolean {
  const { permission, value } = access;
  if (permission === "read" || permission === "write") {
    const path = value.startsWith("file://") ? fileURLToPath(value) : value;
    return grant.some((granted) =>
      path === granted || path.startsWith(granted.endsWith("/") ? granted : `${granted}/`)
    );
  }
  if (permission === "net") {
    return grant.some((host) => value === host || value.startsWith(`${host}:`));
  }
  return grant.includes(value);
}

/**
 * The checks in `audit` (the text of an audit file) that `flags` do not
 * grant, leaving out {@linkcode REFUSED_ON_PURPOSE} (under `--no-prompt`); each as `sys "cpus"`,
 * with how many times it was asked.
 *
 * @example
 * ```ts
 * refused('{"v":1,"permission":"sys","value":"cpus"}\n', ["--allow-sys=hostname"]);
 * // ['sys "cpus" (1×)']
 * ```
 */
export function refused(audit: string, flags: string[]): string[] {
  const grants = grantsOf(flags);
  const counts = new Map<string, number>();
  for (const line of audit.split("\n")) {
    let access: Access;
    try {
      access = JSON.parse(line);
    } catch {
      continue; // The last line of a process killed while it wrote, or the end of the file.
    }
    const grant = grants.get(access.permission);
    const allowed = grant === true ||
      (grant !== undefined && access.value !== null &&
        covers(grant, access as Access & { value: string }));
    // Without --no-prompt a refusal is a prompt at a terminal, which stops hob until answered.
    const onPurpose = flags.includes("--no-prompt") &&
      REFUSED_ON_PURPOSE.some(({ access: known }) =>
        known.permission === access.permission && known.value === access.value
      );
    if (allowed || onPurpose) continue;
    const key = `${access.permission} ${JSON.stringify(access.value ?? "(all)")}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key} (${count}×)`);
}

/** An audit file for one process: its path, and the check to run once the process has ended. */
export interface PermissionAudit {
  /** For the process's `DENO_AUDIT_PERMISSIONS`. */
  path: string;
  /** Throws when the process asked for what `flags` do not grant; removes the file. */
  check(flags: string[], what: string): Promise<void>;
}

/**
 * A fresh audit file for one process.
 *
 * @example
 * ```ts
 * const audit = await permissionAudit();
 * // start the process with env DENO_AUDIT_PERMISSIONS: audit.path, wait for it to end, then:
 * await audit.check(HOB_FLAGS, "hob serve");
 * ```
 */
export async function permissionAudit(): Promise<PermissionAudit> {
  const path = await Deno.makeTempFile({ prefix: "hob-permissions-", suffix: ".jsonl" });
  return {
    path,
    async check(flags, what) {
      const text = await Deno.readTextFile(path).catch(() => "");
      await Deno.remove(path).catch(() => {});
      const asked = refused(text, flags);
      if (asked.length > 0) {
        throw new Error(
          `${what} asked for permissions its flags (${flags.join(" ")}) do not grant: ` +
            `${asked.join(", ")}. Set DENO_TRACE_PERMISSIONS=1 and run it at a terminal to see ` +
            "where; make the code path work without it, or grant the narrowest flag in deno.json.",
        );
      }
    },
  };
}
