/// <reference lib="deno.worker" />
/**
 * The entry of every tool Worker. It holds only the permissions the spawner
 * gave it, runs one call (or describes one user tool) and reports back; host
 * services reach it only as replies to messages it sent. It is never reused:
 * the hob process terminates it after the call.
 */

import { BUILTIN_TOOLS } from "../catalog.ts";
import type { HostApi, ToolContext, ToolDefinition } from "../definition.ts";
import { capOutput } from "../output.ts";
import { resolveInRoots } from "./paths.ts";
import type { FromWorker, ToolDescription, ToolRef, ToWorker, WorkerContext } from "./protocol.ts";

const builtins = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const aborted = new AbortController();
let nextId = 1;

function post(message: FromWorker): void {
  self.postMessage(message);
}

const host: HostApi = {
  call(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      post({ type: "host", id, method, params });
    });
  },
};

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case "host_reply": {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) waiter?.resolve(message.value);
      else waiter?.reject(new Error(message.error));
      break;
    }
    case "abort":
      aborted.abort();
      break;
    case "call":
      call(message.tool, message.args, message.context).then(
        (content) => post({ type: "result", ok: true, content }),
        (error) => post({ type: "result", ok: false, error: errorText(error) }),
      );
      break;
    case "describe":
      (message.as === "skill" ? describeSkill(message.url) : describe(message.url)).then(
        (tool) => post({ type: "description", ok: true, tool }),
        (error) => post({ type: "description", ok: false, error: errorText(error) }),
      );
      break;
  }
};

async function call(
  ref: ToolRef,
  args: unknown,
  data: WorkerContext,
): Promise<string> {
  if (ref.kind === "skill") {
    return await runSkill(ref.url, String((args as { input?: unknown }).input ?? ""), data);
  }
  const tool = ref.kind === "builtin" ? builtins.get(ref.name) : await loadSource(ref.url);
  if (!tool) {
    throw new Error(`No such tool: ${ref.kind === "builtin" ? ref.name : "in the module"}`);
  }
  const now = new Date(data.now).getTime();
  const started = performance.now();
  const context: ToolContext = {
    conversation_id: data.conversation_id,
    signal: aborted.signal,
    now: () => new Date(now + (performance.now() - started)),
    workspace: data.workspace,
    roots: data.roots,
    home: data.home,
    settings: data.settings,
    resolvePath: (path, options) => resolveInRoots(path, data.roots, options),
    host,
  };
  const output = await tool.run(args as Record<string, unknown>, context);
  // Cap here too, so a huge output never crosses the message channel whole.
  return capOutput(
    typeof output === "string" ? output : JSON.stringify(output ?? ""),
    data.max_output_chars,
  );
}

/** What a skill's `run(input, skill)` gets: tools and the model, through the hob process. */
export interface SkillApi {
  /** Calls a tool under the user's policies; throws when it fails. */
  tool(name: string, args?: Record<string, unknown>): Promise<string>;
  /** One answer from the conversation's model. */
  model(prompt: string, options?: { system?: string }): Promise<string>;
  /** The input the user gave after /name. */
  input: string;
}

interface SkillModule {
  name: string;
  description: string;
  run(input: string, skill: SkillApi): unknown;
}

async function loadSkill(url: string): Promise<SkillModule> {
  const module = await import(url);
  const skill = module.default ?? module.skill;
  if (!skill || typeof skill !== "object" || typeof skill.run !== "function") {
    throw new Error(
      "The module exports no skill: use `export default { name, description, async run(input, skill) {…} }`",
    );
  }
  return skill as SkillModule;
}

async function runSkill(url: string, input: string, data: WorkerContext): Promise<string> {
  const skill = await loadSkill(url);
  const api: SkillApi = {
    input,
    async tool(name, args = {}) {
      const result = await host.call("tools.call", { name, args }) as {
        content: string;
        is_error: boolean;
      };
      if (result.is_error) throw new Error(`${name} failed: ${result.content}`);
      return result.content;
    },
    async model(prompt, options = {}) {
      return String(await host.call("model.complete", { prompt, system: options.system }));
    },
  };
  const output = await skill.run(input, api);
  return capOutput(
    typeof output === "string" ? output : JSON.stringify(output ?? ""),
    data.max_output_chars,
  );
}

async function describeSkill(url: string): Promise<ToolDescription> {
  const skill = await loadSkill(url);
  return {
    name: String(skill.name),
    description: String(skill.description ?? ""),
    category: "skill",
    parameters: { type: "object", properties: { input: { type: "string" } } },
    permissions: {},
    side_effect: "none",
    host: ["tools", "model"],
  };
}

async function loadSource(url: string): Promise<ToolDefinition> {
  const module = await import(url);
  const tool = module.default ?? module.tool;
  if (!tool || typeof tool !== "object") {
    throw new Error(
      "The module exports no tool: use `export default { name, description, …, run }`",
    );
  }
  return tool as ToolDefinition;
}

/** Reports a user tool's definition as plain data, its zod parameters as JSON Schema. */
async function describe(url: string): Promise<ToolDescription> {
  const tool = await loadSource(url);
  if (typeof tool.run !== "function") {
    throw new Error("The tool has no run(args, context) function");
  }
  if (typeof tool.permissions === "function") {
    throw new Error(
      "A user tool's permissions must be plain data, so they can be checked before it runs",
    );
  }
  let parameters = tool.parameters as unknown;
  if (parameters && typeof parameters === "object" && "_zod" in parameters) {
    const { z } = await import("zod");
    parameters = z.toJSONSchema(parameters as never, { io: "input" });
    delete (parameters as Record<string, unknown>).$schema;
  }
  return structuredClone({
    name: tool.name,
    description: tool.description,
    category: tool.category ?? "user",
    parameters: (parameters ?? { type: "object", properties: {} }) as Record<string, unknown>,
    permissions: tool.permissions ?? {},
    side_effect: tool.side_effect,
    default_policy: tool.default_policy,
    host: tool.host,
    timeout_ms: typeof tool.timeout_ms === "number" ? tool.timeout_ms : undefined,
    max_output_chars: tool.max_output_chars,
  });
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

post({ type: "ready" });
