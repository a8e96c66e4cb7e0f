/**
 * From what a tool declares to what its Worker gets (`SandboxPermissions`): placeholders expanded to
 * absolute paths, and a user tool's request checked against the most the
 * user's policy allows. The spawner enforces the result; Deno refuses anything
 * beyond the process's own permissions.
 */

import { isAbsolute, join, resolve } from "node:path";
import type { PathGrant, ToolPermissions } from "./definition.ts";
import { isInside } from "./paths.ts";

/** Resolved, absolute permissions for one Worker. */
export interface SandboxPermissions {
  read: false | string[];
  write: false | string[];
  /** `true` for any host. */
  net: boolean | string[];
  env: false | string[];
  run: false | string[];
}

/** No permissions at all: what run_code, skills and user-tool inspection get. */
export const NO_PERMISSIONS: SandboxPermissions = {
  read: false,
  write: false,
  net: false,
  env: false,
  run: false,
};

/** The directories placeholders stand for. */
export interface PermissionScope {
  /** HOME/workspace: `$WORKSPACE`. */
  workspace: string;
  /** The workspace and `tools.roots`: `$ROOTS`. */
  roots: string[];
  /** The hob home: `$HOME`. */
  home: string;
}

/** Raised when a declaration cannot be honoured; the message names the permission. */
export class PermissionError extends Error {
  override name = "PermissionError";
}

/**
 * Expands a tool's declared permissions into a Worker's.
 *
 * @example
 * ```ts
 * resolvePermissions({ read: ["$WORKSPACE"] }, scope).read; // ["/home/me/.hob/workspace"]
 * ```
 */
export function resolvePermissions(
  declared: ToolPermissions,
  scope: PermissionScope,
): SandboxPermissions {
  const net = declared.net;
  return {
    read: expandPaths(declared.read, scope, "read"),
    write: expandPaths(declared.write, scope, "write"),
    net: !net || net.length === 0 ? false : net.includes("*") ? true : [...net],
    env: declared.env && declared.env.length > 0 ? [...declared.env] : false,
    run: declared.run && declared.run.length > 0 ? [...declared.run] : false,
  };
}

/**
 * Why `requested` asks for more than `allowed`, naming the permission, or null
 * when it asks for no more.
 *
 * @example
 * ```ts
 * excessOf(resolvePermissions({ net: ["*"] }, scope), resolvePermissions({}, scope));
 * // "net access to any host"
 * ```
 */
export function excessOf(
  requested: SandboxPermissions,
  allowed: SandboxPermissions,
): string | null {
  for (const kind of ["read", "write"] as const) {
    const want = requested[kind];
    if (!want) continue;
    const may = allowed[kind] || [];
    const outside = want.filter((path) => !may.some((root) => isInside(path, root)));
    if (outside.length > 0) return `${kind} access to ${outside.join(", ")}`;
  }
  if (requested.net) {
    if (requested.net === true && allowed.net !== true) return "net access to any host";
    if (Array.isArray(requested.net) && allowed.net !== true) {
      const may = allowed.net || [];
      const extra = requested.net.filter((host) => !may.includes(host));
      if (extra.length > 0) return `net access to ${extra.join(", ")}`;
    }
  }
  for (const kind of ["env", "run"] as const) {
    const want = requested[kind];
    if (!want) continue;
    const may = allowed[kind] || [];
    const extra = want.filter((name) => !may.includes(name));
    if (extra.length > 0) return `${kind} access to ${extra.join(", ")}`;
  }
  return null;
}

function expandPaths(
  grant: PathGrant | undefined,
  scope: PermissionScope,
  kind: string,
): false | string[] {
  if (!grant || grant.length === 0) return false;
  const out = new Set<string>();
  for (const entry of grant) {
    if (entry === "$ROOTS") {
      for (const root of scope.roots) out.add(resolve(root));
      continue;
    }
    const expanded = entry
      .replace(/^\$WORKSPACE(?=\/|$)/, scope.workspace)
      .replace(/^\$HOME(?=\/|$)/, scope.home);
    if (!isAbsolute(expanded)) {
      throw new PermissionError(
        `${kind} permission '${entry}' must be an absolute path or start with $WORKSPACE, $ROOTS or $HOME`,
      );
    }
    out.add(resolve(join(expanded)));
  }
  return [...out];
}
