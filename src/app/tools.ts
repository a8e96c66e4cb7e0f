/**
 * The tool actions — list the tools (with the skills and the user tools that
 * were refused), get one, invoke one as the owner — each defined once: one
 * zod schema for its input (the one the OpenAPI document shows) and its
 * refusals as {@linkcode ActionError}s. REST, MCP, the page and `hob tool`
 * are translators over these. Each waits for the user's tools to load.
 *
 * It knows the registry and what the toolbox loaded; nothing of any wire
 * format, nor how a call is checked and run (the registry's pipeline does).
 */

import { z } from "zod";
import type { CallSource } from "../tools/registry_types.ts";
import type { InvokeResult, ToolInfo, ToolRegistry } from "../tools/registry.ts";
import type { LoadProblem, Workflow } from "../tools/user_tools.ts";
import { ActionError, checkInput } from "./errors.ts";

/** What invoking takes beyond the tool's name: its arguments. */
export const invokeBody = z.strictObject({
  args: z.record(z.string(), z.unknown()).default({}),
});
/** A tool to run as the owner, with its arguments. */
export const invokeInput = invokeBody.extend({ name: z.string().min(1) });
/** One tool, by name. */
export const toolNameInput = z.object({ name: z.string().min(1) });

export type InvokeInput = z.input<typeof invokeInput>;
export type ToolNameInput = z.input<typeof toolNameInput>;

/** A workflow to run, and what to give it. */
export const runWorkflowInput = z.object({
  name: z.string().min(1),
  input: z.string().default(""),
});
export type RunWorkflowInput = z.input<typeof runWorkflowInput>;

/** What the tool actions work on: the runtime's toolbox is one. */
export interface ToolDeps {
  registry: ToolRegistry;
  /** The user's skills by name. */
  workflows: ReadonlyMap<string, Workflow>;
  /** User tools and skills that were refused, and why. */
  problems(): LoadProblem[];
  /** Settles when the user's tools and skills have loaded. */
  readonly ready: Promise<void>;
}

/**
 * Runs a workflow as `/name input` in chat would (logged as the owner's
 * call); what it returns is the text it made of the input.
 */
export type WorkflowRunner = (name: string, input: string, signal?: AbortSignal) => Promise<string>;

/** Every tool with its permissions and policy, the skills, and what was refused. */
export interface ToolListing {
  tools: ToolInfo[];
  skills: { name: string; description: string }[];
  problems: LoadProblem[];
}

/** Options of {@linkcode ToolActions.invoke}. */
export interface InvokeOptions {
  /** Who calls, for the audit log: the owner through the API, the CLI, or an MCP client. */
  source: Extract<CallSource, "api" | "cli" | "mcp">;
  signal?: AbortSignal;
}

/** The tool actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface ToolActions {
  list(): Promise<ToolListing>;
  /** `not_found` when there is no such tool. */
  get(input: ToolNameInput): Promise<ToolInfo>;
  /**
   * Runs a tool as the owner: no approval asked, a `deny` policy still holds.
   * `not_found` when there is no such tool; the tool's own failure is a
   * result with `is_error`, not a refusal.
   */
  invoke(input: InvokeInput, options: InvokeOptions): Promise<InvokeResult>;
  /** Settles once the user's tools and workflows have loaded (beside start-up). */
  ready(): Promise<void>;
  /**
   * Runs the workflow `name` with `input`: its description and the text it
   * made. `not_found` naming `name` when there is no such workflow.
   */
  runWorkflow(
    input: RunWorkflowInput,
    options?: { signal?: AbortSignal },
  ): Promise<{ description: string; text: string }>;
}

/**
 * The tool actions over a toolbox.
 *
 * @example
 * ```ts
 * const tools = createToolActions(toolbox);
 * const result = await tools.invoke({ name: "get_time", args: {} }, { source: "cli" });
 * ```
 */
export function createToolActions(deps: ToolDeps, runWorkflow?: WorkflowRunner): ToolActions {
  const { registry } = deps;
  const find = async (name: string) => {
    await deps.ready;
    const tool = registry.list().find((each) => each.name === name);
    if (!tool) throw new ActionError("not_found", `No tool named '${name}'`, { field: "name" });
    return tool;
  };
  return {
    async list() {
      await deps.ready;
      return {
        tools: registry.list(),
        skills: [...deps.workflows.values()].map(({ name, description }) => ({
          name,
          description,
        })),
        problems: deps.problems(),
      };
    },
    get(input) {
      return find(checkInput(toolNameInput, input).name);
    },
    async invoke(input, options) {
      const { name, args } = checkInput(invokeInput, input);
      await find(name);
      return await registry.invoke(name, args, options.source, options.signal);
    },
    ready: () => deps.ready,
    async runWorkflow(input, options = {}) {
      const { name, input: text } = checkInput(runWorkflowInput, input);
      await deps.ready;
      const workflow = deps.workflows.get(name);
      if (!workflow || !runWorkflow) {
        throw new ActionError("not_found", `No skill named '${name}'`, { field: "name" });
      }
      return {
        description: workflow.description,
        text: await runWorkflow(name, text, options.signal),
      };
    },
  };
}
