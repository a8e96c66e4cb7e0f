/** A real tool registry over a temporary home: real SQLite, real Workers. */

import { configSchema } from "../../src/config/schema.ts";
import { ensureHome } from "../../src/home/home.ts";
import { SqliteApprovals } from "../../src/store/approvals.ts";
import { openDatabase } from "../../src/store/database.ts";
import { SqliteToolEvents } from "../../src/store/tool_events.ts";
import { SETTINGS_DEPENDENT } from "../../src/builtins/settings_dependent.ts";
import { BUILTIN_TOOLS } from "../../src/builtins/catalog.ts";
import { SANDBOX_ENTRIES } from "../../src/builtins/sandbox_entries.ts";
import { BUILTIN_MANIFEST } from "../../src/builtins/manifest.gen.ts";
import type { ToolPolicy } from "../../src/sandbox/definition.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { ToolSpawner } from "../../src/sandbox/spawner.ts";

export interface TempRegistry extends AsyncDisposable {
  home: string;
  workspace: string;
  registry: ToolRegistry;
  approvals: SqliteApprovals;
  events: SqliteToolEvents;
  spawner: ToolSpawner;
}

/** Options for {@linkcode tempRegistry}. */
export interface TempRegistryOptions {
  policies?: Record<string, ToolPolicy>;
  settings?: Record<string, Record<string, unknown>>;
  extraRoots?: string[];
  approvalTimeoutMs?: number;
  taint?: { enabled: boolean; exempt: string[] };
  /** Register the built-ins from the manifest (as a home does), their modules loaded at first call. */
  listed?: boolean;
}

/** A registry with every built-in tool, over a fresh home. */
export async function tempRegistry(options: TempRegistryOptions = {}): Promise<TempRegistry> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-tools-" }));
  await ensureHome(home);
  const workspace = `${home}/workspace`;
  const db = openDatabase(`${home}/hob.db`);
  const approvals = new SqliteApprovals(db);
  const events = new SqliteToolEvents(db);
  const spawner = new ToolSpawner({ entries: SANDBOX_ENTRIES });
  const roots = [workspace, ...(options.extraRoots ?? [])];
  const defaults = configSchema.parse({}).tools;
  const registry = new ToolRegistry({
    scope: { workspace, roots, home },
    spawner,
    approvals,
    events,
    policies: options.policies,
    taint: options.taint,
    outputCapChars: defaults.output_cap,
    approvalTimeoutMs: options.approvalTimeoutMs ?? defaults.approval_timeout_s * 1000,
    settings: {
      "*": { roots },
      run_command: { shell: { policy: "ask", allowlist: ["ls", "cat", "echo", "grep", "wc"] } },
      run_python: { shell: { policy: "ask" } },
      ...options.settings,
    },
  });
  if (options.listed) {
    for (const entry of BUILTIN_MANIFEST) {
      registry.registerListed(entry, SETTINGS_DEPENDENT[entry.name]);
    }
  } else {
    for (const tool of BUILTIN_TOOLS) registry.registerBuiltin(tool);
  }
  return {
    home,
    workspace,
    registry,
    approvals,
    events,
    spawner,
    async [Symbol.asyncDispose]() {
      spawner.close();
      db.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** The text inside an untrusted-content marker (as the registry wraps outside output), or `text` as is. */
export function unmark(text: string): string {
  return /^<untrusted source="[^"]*">\n([\s\S]*)\n<\/untrusted>$/.exec(text)?.[1] ?? text;
}
