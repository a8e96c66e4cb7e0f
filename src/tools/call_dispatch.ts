/**
 * Running a cleared tool call: an in-process tool (an MCP server's) with its
 * timeout, or any other in a sandbox through the spawner, with exactly the
 * tool's permissions, answering the service calls its capabilities allow. Gives
 * back the raw output and whose words it is; labelling is the next step.
 */

import type { ToolCallContext } from "../core/ports.ts";
import type { ServiceMethod } from "../sandbox/services.ts";
import { carriedTaint, type RawOutput } from "./call_label.ts";
import type { CallSource, HobServices, InProcessRun, RegisteredTool } from "./registry_types.ts";
import type { PermissionScope } from "../sandbox/permissions.ts";
import type { ToSandbox } from "../sandbox/protocol.ts";
import type { ToolSpawner } from "../sandbox/spawner.ts";

/** What dispatching runs on: the registry's sandbox and hob services. */
export interface DispatchEnv {
  scope: PermissionScope;
  spawner: Pick<ToolSpawner, "exchange">;
  /** Read at each service call, so services set after a call started are found; null until set. */
  services: () => HobServices | null;
  now?: () => Date;
}

/** One cleared call. */
export interface DispatchCall {
  tool: RegisteredTool;
  /** The validated arguments. */
  args: unknown;
  /** The tool's settings from hob.yaml. */
  settings: Record<string, unknown>;
  /** Longest output the tool should produce. */
  cap: number;
  context: ToolCallContext;
  /** Who called: a turn's agent, a skill, or the owner through the API, CLI or MCP. */
  source: CallSource;
}

/**
 * Runs the call and returns its raw output. Never throws: a timeout, a stop, a
 * crash or a tool with nothing to run is an error output.
 *
 * @example
 * ```ts
 * const raw = await dispatchCall({ scope, spawner, services: () => services }, { tool, args, settings, cap, context, source: "agent" });
 * ```
 */
export async function dispatchCall(env: DispatchEnv, call: DispatchCall): Promise<RawOutput> {
  const { tool, args, context } = call;
  if (tool.run) {
    const result = await runInProcess(tool.run, args, tool.timeout(args), context.signal);
    return { ...result, own: result.own ?? false, carried: null };
  }
  if (!tool.ref) {
    return { content: `${tool.name} has nothing to run`, is_error: true, own: true, carried: null };
  }
  return await runInSandbox(env, call);
}

/** Runs the call in a Worker or a tool process, noting labelled data the host hands it. */
async function runInSandbox(env: DispatchEnv, call: DispatchCall): Promise<RawOutput> {
  const { tool, args, context } = call;
  const flow = { carried: null as string | null };
  const outcome = await env.spawner.exchange(tool.permissions, callMessage(env, call), {
    timeoutMs: tool.timeout(args),
    signal: context.signal,
    onService: (method, params) =>
      answerService(env, call, method, params).then((value) => {
        // Data that carries a label taints what the call makes of it.
        if (!flow.carried && carriedTaint(value)) flow.carried = `what ${method} returned`;
        return value;
      }),
  });
  const carried = flow.carried;
  if (!outcome.ok) {
    // A timeout or a stop is hob's own word; a crash's message comes from inside the tool.
    const own = outcome.reason === "timeout" || outcome.reason === "aborted";
    return { content: `${tool.name} ${outcome.error}`, is_error: true, own, carried };
  }
  const message = outcome.message;
  if (message.type !== "result") {
    return { content: `${tool.name} gave no result`, is_error: true, own: true, carried };
  }
  if (message.ok) return { content: message.content, is_error: false, own: false, carried };
  return { content: message.error, is_error: true, own: false, carried };
}

/** The message that starts the call in its sandbox. */
function callMessage(
  env: DispatchEnv,
  { tool, args, settings, cap, context }: DispatchCall,
): ToSandbox {
  const { scope } = env;
  return {
    type: "call",
    tool: tool.ref!,
    args,
    context: {
      conversation_id: context.conversation_id ?? "",
      now: (env.now?.() ?? new Date()).toISOString(),
      workspace: scope.workspace,
      roots: scope.roots,
      home: scope.home,
      settings,
      max_output_chars: cap,
    },
  };
}

/** Answers one service call from the sandbox, if the tool declared the capability. */
function answerService(
  env: DispatchEnv,
  { tool, context, source }: DispatchCall,
  method: string,
  params: unknown,
): Promise<unknown> {
  const capability = method.split(".")[0];
  if (!tool.services.some((name) => name === capability)) {
    return Promise.reject(new Error(`${tool.name} may not use the hob service '${method}'`));
  }
  const services = env.services();
  if (!services || !isMethodOf(services, method)) {
    return Promise.reject(new Error(`No hob service '${method}'`));
  }
  // The service checks `params` against its schema: here it is still what the Worker sent.
  return services[method](params, {
    tool: tool.name,
    conversation_id: context.conversation_id,
    depth: context.depth ?? 0,
    signal: context.signal,
    emit: context.emit,
    model: context.model,
    tainted: context.tainted,
    seen: context.seen,
    source,
  });
}

/** Whether `method`, a name the Worker sent, is one of `services` (its own, not Object's). */
function isMethodOf(services: HobServices, method: string): method is ServiceMethod {
  return Object.hasOwn(services, method);
}

/** What an in-process tool gave; `own` when hob wrote it. */
interface InProcessResult {
  content: string;
  is_error: boolean;
  own?: boolean;
}

/** Runs an in-process tool with its timeout; a throw or a timeout is an error result. */
async function runInProcess(
  run: InProcessRun,
  args: unknown,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<InProcessResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    return await run(args, combined);
  } catch (error) {
    if (timeout.aborted) {
      return {
        content: `timed out after ${Math.round(timeoutMs / 1000)} s`,
        is_error: true,
        own: true,
      };
    }
    if (signal?.aborted) {
      return { content: "stopped: the turn was aborted", is_error: true, own: true };
    }
    // The message comes from the tool's server: outside text.
    return { content: (error as Error).message, is_error: true };
  }
}
