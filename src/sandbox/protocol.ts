/**
 * The messages between the hob process and a tool Worker or tool process.
 * Everything crosses as data (structured-cloneable to a Worker, JSON to a
 * process); functions and handles never do.
 */

import type { JsonSchema } from "../core/types.ts";
import type { ServiceName, SideEffect, ToolPermissions, ToolPolicy } from "./definition.ts";

/**
 * What a Worker runs: a built-in tool by name, or a user tool's or skill's
 * source as a data: URL (so the Worker needs no read permission to load it),
 * or an Agent Skill's script (its args are a `ScriptCall`, skill_script.ts).
 */
export type ToolRef =
  | { kind: "builtin"; name: string }
  | { kind: "source"; url: string }
  | { kind: "skill"; url: string }
  | { kind: "script"; url: string };

/** What the Worker's ToolContext is built from. */
export interface SandboxContext {
  conversation_id: string;
  now: string;
  workspace: string;
  roots: string[];
  home: string;
  settings: Record<string, unknown>;
  max_output_chars: number;
}

/** A user tool's definition as the Worker reports it, before the hob process checks it. */
export interface ToolDescription {
  name: string;
  description: string;
  category: string;
  parameters: JsonSchema;
  permissions: ToolPermissions;
  side_effect: SideEffect;
  default_policy?: ToolPolicy;
  services?: ServiceName[];
  timeout_ms?: number;
  max_output_chars?: number;
  untrusted_output?: boolean;
}

/** From the hob process to a Worker. */
export type ToSandbox =
  | { type: "call"; tool: ToolRef; args: unknown; context: SandboxContext }
  | { type: "describe"; url: string; as: "tool" | "skill" }
  | { type: "service_reply"; id: number; ok: true; value: unknown }
  | { type: "service_reply"; id: number; ok: false; error: string }
  | { type: "abort" };

/** From a Worker to the hob process. */
export type FromSandbox =
  | { type: "ready" }
  | { type: "result"; ok: true; content: string }
  | { type: "result"; ok: false; error: string }
  | { type: "description"; ok: true; tool: ToolDescription }
  | { type: "description"; ok: false; error: string }
  | { type: "service"; id: number; method: string; params: unknown };

/**
 * From a tool process to the hob process: what its Worker would say, or why
 * the tool died when the process can still tell (an uncaught error, a call to
 * `Deno.exit`, the memory cap).
 */
export type FromProcess = FromSandbox | { type: "crashed"; error: string };
