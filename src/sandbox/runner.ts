/**
 * What runs inside a tool sandbox, whichever kind it is: it takes one call (or
 * describes one user tool or skill), runs it with the permissions its sandbox
 * was started with and reports back; hob services reach it only as replies
 * to messages it sent. A tool Worker's entry (src/builtins/worker_entry.ts)
 * serves hob's own built-in tools with it; the tool process (child.ts) serves
 * code hob did not write.
 */

import type { ServicesApi, ToolContext, ToolDefinition } from "./definition.ts";
import { writeInRoots } from "./file_writes.ts";
import { capOutput } from "./output_cap.ts";
import { openInRoots, readDirInRoots, resolveInRoots } from "./paths.ts";
import { runScript, type ScriptCall } from "./skill_script.ts";
import type {
  FromProcess,
  SandboxContext,
  ToolDescription,
  ToolRef,
  ToSandbox,
} from "./protocol.ts";

/** How a sandbox talks to the hob process: a Worker's messages or a process's frames. */
export interface ToolPort {
  post(message: FromProcess): void;
  listen(handler: (message: ToSandbox) => void): void;
}

/** What a sandbox may run. */
export interface ServeOptions {
  /** Built-in tools by name. */
  builtins: ReadonlyMap<string, ToolDefinition>;
  /**
   * Whether it may load code from outside hob (user tools, skills, their
   * inspection). Only tool processes may; hob's own Workers refuse it.
   */
  foreignCode: boolean;
}

/**
 * Serves one sandbox's call over `port` and says it is ready.
 *
 * @example
 * ```ts
 * serveTools(workerPort(), { builtins, foreignCode: false });
 * ```
 */
export function serveTools(port: ToolPort, options: ServeOptions): void {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const aborted = new AbortController();
  let nextId = 1;
  const services: ServicesApi = {
    call(method, params) {
      const id = nextId++;
      // The hob process answers as its declaration of `method` does, which the
      // compiler checks against ServiceCalls: the answer is read as that.
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        port.post({ type: "service", id, method, params });
      });
    },
  };
  const run = { services, signal: aborted.signal, options };

  port.listen((message) => {
    switch (message.type) {
      case "service_reply": {
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
        if (message.tool.kind === "script") {
          serveScript(port, options, message.tool.url, message.args);
          break;
        }
        call(run, message.tool, message.args, message.context).then(
          (content) => port.post({ type: "result", ok: true, content }),
          (error) => port.post({ type: "result", ok: false, error: errorText(error) }),
        );
        break;
      case "describe":
        describeModule(options, message.url, message.as).then(
          (tool) => port.post({ type: "description", ok: true, tool }),
          (error) => port.post({ type: "description", ok: false, error: errorText(error) }),
        );
        break;
    }
  });
  port.post({ type: "ready" });
}

/**
 * The port of the Worker this code runs in.
 *
 * @example
 * ```ts
 * serveTools(workerPort(), options);
 * ```
 */
export function workerPort(): ToolPort {
  // Typed by hand: this module is also loaded outside Workers.
  const scope = globalThis as unknown as {
    postMessage(message: unknown): void;
    onmessage: ((event: MessageEvent<ToSandbox>) => void) | null;
  };
  return {
    post: (message) => scope.postMessage(message),
    listen(handler) {
      scope.onmessage = (event) => handler(event.data);
    },
  };
}

interface Run {
  services: ServicesApi;
  signal: AbortSignal;
  options: ServeOptions;
}

async function call(run: Run, ref: ToolRef, args: unknown, data: SandboxContext): Promise<string> {
  if (ref.kind !== "builtin") refuseUnlessForeign(run.options);
  if (ref.kind === "skill") {
    return await runSkill(
      run.services,
      ref.url,
      String((args as { input?: unknown }).input ?? ""),
      data,
    );
  }
  const tool = ref.kind === "builtin"
    ? run.options.builtins.get(ref.name)
    : await loadSource(ref.url);
  if (!tool) {
    throw new Error(`No such tool: ${ref.kind === "builtin" ? ref.name : "in the module"}`);
  }
  const now = new Date(data.now).getTime();
  const started = performance.now();
  const context: ToolContext = {
    conversation_id: data.conversation_id,
    signal: run.signal,
    now: () => new Date(now + (performance.now() - started)),
    workspace: data.workspace,
    roots: data.roots,
    home: data.home,
    settings: data.settings,
    resolvePath: (path, options) => resolveInRoots(path, data.roots, options),
    openFile: (path, options) => openInRoots(path, data.roots, options),
    readDirectory: (path, options) => readDirInRoots(path, data.roots, options),
    writeFile: (path, content, options) => writeInRoots(path, content, data.roots, options),
    services: run.services,
  };
  const output = await tool.run(args as Record<string, unknown>, context);
  // Cap here too, so a huge output never crosses the pipe whole.
  return capOutput(
    typeof output === "string" ? output : JSON.stringify(output ?? ""),
    data.max_output_chars,
  );
}

/**
 * Runs a skill's script and posts its outcome (as JSON) the moment it is
 * known: a script may end inside `Deno.exit`, which ends this Worker too.
 */
function serveScript(port: ToolPort, options: ServeOptions, url: string, args: unknown): void {
  const post = (content: string) => port.post({ type: "result", ok: true, content });
  try {
    refuseUnlessForeign(options);
  } catch (error) {
    return port.post({ type: "result", ok: false, error: errorText(error) });
  }
  runScript(url, args as ScriptCall, (outcome) => post(JSON.stringify(outcome))).catch(
    (error) => port.post({ type: "result", ok: false, error: errorText(error) }),
  );
}

/** Hob's own Workers never load code from outside: that runs in a tool process. */
function refuseUnlessForeign(options: ServeOptions): void {
  if (!options.foreignCode) {
    throw new Error("Code from outside hob runs only in a tool process, never in hob's Workers");
  }
}

function describeModule(
  options: ServeOptions,
  url: string,
  as: "tool" | "skill",
): Promise<ToolDescription> {
  try {
    refuseUnlessForeign(options);
  } catch (error) {
    return Promise.reject(error);
  }
  return as === "skill" ? describeSkill(url) : describe(url);
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

interface WorkflowModule {
  name: string;
  description: string;
  run(input: string, skill: SkillApi): unknown;
}

async function loadWorkflow(url: string): Promise<WorkflowModule> {
  const module = await import(url);
  const skill = module.default ?? module.skill;
  if (!skill || typeof skill !== "object" || typeof skill.run !== "function") {
    throw new Error(
      "The module exports no skill: use `export default { name, description, async run(input, skill) {…} }`",
    );
  }
  return skill as WorkflowModule;
}

async function runSkill(
  services: ServicesApi,
  url: string,
  input: string,
  data: SandboxContext,
): Promise<string> {
  const skill = await loadWorkflow(url);
  const api: SkillApi = {
    input,
    async tool(name, args = {}) {
      const result = await services.call("tools.call", { name, args });
      if (result.is_error) throw new Error(`${name} failed: ${result.content}`);
      return result.content;
    },
    async model(prompt, options = {}) {
      return await services.call("model.complete", { prompt, system: options.system });
    },
  };
  const output = await skill.run(input, api);
  return capOutput(
    typeof output === "string" ? output : JSON.stringify(output ?? ""),
    data.max_output_chars,
  );
}

async function describeSkill(url: string): Promise<ToolDescription> {
  const skill = await loadWorkflow(url);
  return {
    name: String(skill.name),
    description: String(skill.description ?? ""),
    category: "skill",
    parameters: { type: "object", properties: { input: { type: "string" } } },
    permissions: {},
    side_effect: "none",
    services: ["tools", "model"],
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
    services: tool.services,
    timeout_ms: typeof tool.timeout_ms === "number" ? tool.timeout_ms : undefined,
    max_output_chars: tool.max_output_chars,
    // Reported as declared: hob decides (a tool that may read, reach the net or run is untrusted).
    untrusted_output: typeof tool.untrusted_output === "boolean"
      ? tool.untrusted_output
      : undefined,
  });
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
