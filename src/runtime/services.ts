/**
 * The services of the hob process that tools reach from their Workers by
 * message — the model, child agents, the registry, skills — and the chat
 * command port that runs skills as `/name input`. Each service checks its
 * input; a tool only reaches the services its definition declares.
 */

import { z } from "zod";
import { type AgentDeps, runTurn } from "../core/agent.ts";
import { derivedText, excerpt, isMarked, untrusted } from "../core/untrusted.ts";
import type { CommandPort, ConversationStore, ToolCallContext } from "../core/ports.ts";
import type { WrittenBy } from "../store/versions.ts";
import { completeText } from "../core/complete.ts";
import { collectReply } from "../core/reply.ts";
import type { AgentEvent, ImageContent } from "../core/types.ts";
import type { HobServices, ServiceCallContext } from "../tools/registry.ts";
import { NO_PERMISSIONS } from "../sandbox/permissions.ts";
import { resolveInRoots } from "../sandbox/paths.ts";
import { extractVideoFrames } from "../media/video.ts";
import { Buffer } from "node:buffer";
import type { Toolbox } from "./toolbox.ts";
import { skillScriptServices } from "./skill_scripts.ts";
import type { AppActions } from "../app/app.ts";
import type { MemoryActions } from "../app/memory.ts";
import type { ConversationActions } from "../app/conversations.ts";
import { ActionError, received } from "../app/errors.ts";
import type { NewScheduleInput, ScheduleKeyInput } from "../app/schedules.ts";
import type { ListTasksInput, NewTaskInput, TaskIdInput } from "../app/tasks.ts";
import {
  createSkillInput,
  type SkillActions,
  skillFileInput,
  skillNameInput,
} from "../app/skills.ts";

/** How deep sub-agents may nest: a sub-agent may not spawn another. */
export const MAX_AGENT_DEPTH = 1;
/** How long a skill may run. */
const SKILL_TIMEOUT_MS = 600_000;
/** Longest result a skill may return, in characters. */
const SKILL_OUTPUT_CHARS = 20_000;
/** Tokens a one-off model answer (analyze_image, skills) may use. */
const COMPLETE_MAX_TOKENS = 2_048;

const completeParams = z.object({
  prompt: z.string().min(1),
  system: z.string().optional(),
  images: z.array(z.object({ media_type: z.string(), data: z.string() })).optional(),
});
const agentParams = z.object({ task: z.string().min(1), context: z.string().default("") });
const toolCallParams = z.object({
  name: z.string(),
  args: z.record(z.string(), z.unknown()).default({}),
});
const buildParams = z.object({ name: z.string(), description: z.string(), code: z.string() });
const skillParams = z.object({ name: z.string(), input: z.string().default("") });
const memorySearchParams = z.object({
  query: z.string().min(1),
  limit: z.number().int().min(1).max(50).default(5),
});
const memoryGetParams = z.object({
  path: z.string().min(1),
  from: z.number().int().min(1).default(1),
  lines: z.number().int().min(1).default(60),
});
const textParams = z.object({ text: z.string() });
const videoParams = z.object({
  path: z.string().min(1),
  count: z.number().int().min(1).max(16).default(8),
});
/** Widest frame sent to a model, in pixels: enough to read, small enough to send many. */
const FRAME_WIDTH = 768;
/** Largest video looked at, in bytes. */
const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
const sectionParams = z.object({ section: z.string(), content: z.string() });
const sourceParams = z.object({ source: z.string() });
const conversationSearchParams = z.object({
  query: z.string().min(1),
  conversation_id: z.string().min(1).optional(),
  role: z.enum(["user", "assistant", "tool"]).optional(),
  limit: z.number().int().min(1).max(20).default(8),
});
const conversationViewParams = z.object({
  conversation_id: z.string().min(1),
  message_id: z.number().int().min(1).optional(),
  position: z.number().int().min(1).optional(),
  before: z.number().int().min(0).max(10).default(3),
  after: z.number().int().min(0).max(10).default(3),
});
/** Characters of a message read around a hit: the gist of each, the whole window in one answer. */
const VIEWED_MESSAGE_CHARS = 1_500;
/** Characters of the message the window is around: the one asked for, read more fully. */
const VIEWED_ANCHOR_CHARS = 6_000;

/** The hob services, and the skill runner the chat commands share with them. */
export interface ServiceSet {
  services: HobServices;
  runSkill(name: string, input: string, context: ServiceCallContext): Promise<string>;
}

/**
 * Creates the hob services for a runtime's tools.
 *
 * @example
 * ```ts
 * const hob = createServices(agent, toolbox, app);
 * toolbox.registry.setServices(hob.services);
 * ```
 */
export function createServices(
  agent: AgentDeps,
  toolbox: Toolbox,
  app: AppActions,
): ServiceSet {
  const services: HobServices = {};
  const runSkill = skillRunner(agent, toolbox, services);
  Object.assign(
    services,
    memoryServices(app.memory, agent.store),
    conversationServices(app.conversations),
    modelServices(agent, (tool) => toolbox.workflows.has(tool)),
    backgroundServices(app),
    toolServices(toolbox, runSkill, agent.store),
    agentSkillServices(app.skills, agent.store),
    mediaServices(toolbox),
    skillScriptServices(app.skills, toolbox, () => agent.clock.now()),
  );
  return { services, runSkill };
}

/**
 * Memory search and writes, over the memory actions. What a tainted turn
 * writes to memory keeps the label, so every later turn that reads it is
 * tainted too: an injection cannot launder itself into a clean conversation
 * through memory.
 */
function memoryServices(memory: MemoryActions, conversations: ConversationStore): HobServices {
  const by = (context: ServiceCallContext) => writtenBy(context, conversations);
  return {
    async "memory.search"(params) {
      const { query, limit } = memorySearchParams.parse(params);
      return (await memory.search({ q: query, limit })).hits;
    },
    "memory.get": (params) => memory.read(memoryGetParams.parse(params)),
    "memory.remember": (params, context) => memory.remember(textParams.parse(params), by(context)),
    "memory.log": (params, context) => memory.log(textParams.parse(params), by(context)),
    "memory.write": (params, context) =>
      memory.writeSection(sectionParams.parse(params), by(context)),
    async "memory.add"(params, context) {
      const added = await memory.addSource(sourceParams.parse(params), by(context), context.signal);
      // The document's title is its own words: the tool's output is labelled as a whole.
      return { ...added, version: added.version?.id ?? null };
    },
  };
}

/**
 * Who a tool's write is by, for the file history: the agent in a turn (a job
 * or the heartbeat when the turn is theirs), or whoever called the tool
 * directly — the owner through the API or CLI, another agent through MCP.
 */
export function writtenBy(
  context: ServiceCallContext,
  conversations: ConversationStore,
): WrittenBy {
  const base = {
    via: context.tool,
    conversation_id: context.conversation_id,
    taint: context.tainted,
  };
  if (context.conversation_id === null) {
    return { ...base, author: context.source === "mcp" ? "mcp" : "owner" };
  }
  const kind = conversations.getConversation(context.conversation_id)?.kind;
  return { ...base, author: kind === "job" || kind === "heartbeat" ? "job" : "agent" };
}

/**
 * Searching past conversations and reading around a hit, over the
 * conversation actions. The conversation asking is left out of a search
 * unless named: its live messages are in the model's context already, and
 * its latest (the question itself) would match every search. Text the owner
 * did not type and hob did not write comes back inside a label, so the call
 * returns labelled output and the turn that reads it is tainted.
 */
function conversationServices(conversations: ConversationActions): HobServices {
  const labelled = (text: string, source: string | null) =>
    source === null || isMarked(text) ? text : untrusted(source, text);
  return {
    async "conversations.search"(params, context) {
      const { query, ...filters } = conversationSearchParams.parse(params);
      const hits = await conversations.search({ q: query, ...filters }, {
        exclude: context.conversation_id ?? undefined,
      });
      return hits.map((hit) => ({
        conversation_id: hit.conversation_id,
        title: hit.title,
        kind: hit.kind,
        message_id: hit.message_id,
        position: hit.position,
        role: hit.role,
        tool_name: hit.tool_name,
        at: hit.created_at,
        snippet: labelled(hit.snippet, hit.untrusted),
      }));
    },
    async "conversations.view"(params) {
      const { conversation_id, ...window } = conversationViewParams.parse(params);
      const view = await conversations.view({ id: conversation_id, ...window });
      const isAnchor = (message: { id: number; position: number }) =>
        window.message_id !== undefined
          ? message.id === window.message_id
          : message.position === (window.position ?? 1);
      return {
        conversation: view.conversation,
        messages: view.messages.map((message) => {
          const cap = isAnchor(message) ? VIEWED_ANCHOR_CHARS : VIEWED_MESSAGE_CHARS;
          const cut = message.content.length > cap;
          const text = cut ? excerpt(message.content, 0, cap) : message.content;
          return {
            id: message.id,
            position: message.position,
            role: message.role,
            tool_name: message.tool_name,
            called: (message.tool_calls ?? []).map((call) => call.name),
            at: message.created_at,
            content: labelled(text, message.untrusted),
            cut: cut ? message.content.length - cap : 0,
          };
        }),
      };
    },
  };
}

/** The turn's model: one answer, or a sub-agent's whole turn. */
function modelServices(agent: AgentDeps, isSkill: (tool: string) => boolean): HobServices {
  return {
    async "model.complete"(params, context) {
      const { prompt, system, images } = completeParams.parse(params);
      const kind = isSkill(context.tool) ? "skill" : "tool";
      return await complete(agent, { ...context, kind }, prompt, system, images);
    },
    async "agent.run"(params, context) {
      const { task, context: brief } = agentParams.parse(params);
      return await runSubAgent(agent, context, task, brief);
    },
  };
}

/**
 * Frames of a video, for analyze_video: the path is resolved inside the
 * tools' roots (as the tool's own would be), then ffmpeg reads it here.
 */
function mediaServices(toolbox: Toolbox): HobServices {
  return {
    async "media.video_frames"(params, context) {
      const { path, count } = videoParams.parse(params);
      const file = await resolveInRoots(path, toolbox.scope.roots);
      const info = await Deno.stat(file);
      if (!info.isFile) throw new Error(`${path} is not a file`);
      if (info.size > MAX_VIDEO_BYTES) throw new Error(`${path} is larger than 2 GB`);
      const video = await extractVideoFrames(file, {
        count,
        maxWidth: FRAME_WIDTH,
        signal: context.signal,
      });
      return {
        ...video,
        frames: video.frames.map(({ at, jpeg }) => ({
          at,
          media_type: "image/jpeg",
          data: Buffer.from(jpeg).toString("base64"),
        })),
      };
    },
  };
}

/** Calling and building tools and skills. */
function toolServices(
  toolbox: Toolbox,
  runSkill: ServiceSet["runSkill"],
  conversations: ConversationStore,
): HobServices {
  return {
    async "tools.call"(params, context) {
      const { name, args } = toolCallParams.parse(params);
      return await toolbox.registry.execute(
        { id: `skill_${crypto.randomUUID().slice(0, 8)}`, name, arguments: JSON.stringify(args) },
        { ...toolContext(context), source: "skill" },
      );
    },
    "tools.build"(params, context) {
      const { name, description, code } = buildParams.parse(params);
      return toolbox.buildTool(name, description, code, writtenBy(context, conversations));
    },
    "skills.build"(params, context) {
      const { name, description, code } = buildParams.parse(params);
      return toolbox.buildWorkflow(name, description, code, writtenBy(context, conversations));
    },
    "skills.list"() {
      return Promise.resolve(
        [...toolbox.workflows.values()].map((skill) => ({
          name: skill.name,
          description: skill.description,
        })),
      );
    },
    async "skills.run"(params, context) {
      const { name, input } = skillParams.parse(params);
      return await runSkill(name, input, context);
    },
  };
}

/**
 * An Agent Skill's instructions and files, over the skill actions (which
 * check the input, the skill's state and its hash, and label the author's words).
 */
function agentSkillServices(
  skills: SkillActions,
  conversations: ConversationStore,
): HobServices {
  return {
    async "skills.create"(params, context) {
      const by = writtenBy(context, conversations).author;
      const skill = await skills.create(received(createSkillInput, params), by);
      return `Built the skill '${skill.name}' (${
        skill.review?.size.lines ?? 0
      } lines of instructions). Later turns list it; use_skill reads it.`;
    },
    async "skills.use"(params) {
      return (await skills.instructions(received(skillNameInput, params))).text;
    },
    "skills.file": (params) => skills.readFile(received(skillFileInput, params)),
  };
}

/**
 * Runs `task` as a sub-agent's turn in a conversation of its own; its tools'
 * approval requests reach the user through the calling turn.
 */
async function runSubAgent(
  agent: AgentDeps,
  context: ServiceCallContext,
  task: string,
  brief: string,
): Promise<string> {
  if (context.depth >= MAX_AGENT_DEPTH) {
    throw new Error("A sub-agent cannot spawn further sub-agents; do the task yourself");
  }
  const conversation = agent.store.createConversation({
    title: `Sub-agent: ${task.slice(0, 50)}`,
    kind: "subagent",
    model: context.model ?? null,
  });
  const events = runTurn(agent, {
    message: brief ? `${task}\n\nContext:\n${brief}` : task,
    conversation_id: conversation.id,
    signal: context.signal,
    depth: context.depth + 1,
    // A sub-agent of a tainted turn is tainted from the start.
    tainted: context.tainted,
  });
  const reply = await collectReply(forwardApprovals(events, context));
  if (reply.error && !reply.content) {
    throw new Error(`the sub-agent failed: ${reply.error.message}`);
  }
  const answer = `${reply.content}\n\n(sub-agent conversation ${conversation.id})`;
  // What a sub-agent made of untrusted content is untrusted too.
  return derivedText(answer, reply.taint, `spawn_agent: ${conversation.id}`);
}

/** Passes a turn's events on, emitting its approval events into the calling turn. */
async function* forwardApprovals(
  events: AsyncIterable<AgentEvent>,
  context: ServiceCallContext,
): AsyncGenerator<AgentEvent> {
  for await (const event of events) {
    if (event.type === "approval_required" || event.type === "approval_resolved") {
      context.emit?.(event);
    }
    yield event;
  }
}

/**
 * The skill runner: a skill runs in a Worker with no permissions; its tool and
 * model calls come back to `services`.
 */
function skillRunner(
  agent: AgentDeps,
  toolbox: Toolbox,
  services: HobServices,
): ServiceSet["runSkill"] {
  return async function runSkill(name, input, context) {
    const skill = toolbox.workflows.get(name);
    if (!skill) {
      const known = [...toolbox.workflows.keys()];
      throw new Error(
        `No skill named '${name}'${known.length ? `; there are: ${known.join(", ")}` : ""}`,
      );
    }
    const scope = toolbox.scope;
    const outcome = await toolbox.spawner.exchange(NO_PERMISSIONS, {
      type: "call",
      tool: { kind: "skill", url: skill.url },
      args: { input },
      context: {
        conversation_id: context.conversation_id ?? "",
        now: agent.clock.now().toISOString(),
        workspace: scope.workspace,
        roots: scope.roots,
        home: scope.home,
        settings: {},
        max_output_chars: SKILL_OUTPUT_CHARS,
      },
    }, {
      timeoutMs: SKILL_TIMEOUT_MS,
      signal: context.signal,
      onService: (method, params) => {
        if (method !== "tools.call" && method !== "model.complete") {
          return Promise.reject(new Error(`a skill may not use '${method}'`));
        }
        // The skill's own name goes to the usage log with its model calls.
        return services[method](
          params,
          method === "model.complete" ? { ...context, tool: name } : context,
        );
      },
    });
    if (!outcome.ok) throw new Error(`the skill ${outcome.error}`);
    const message = outcome.message;
    if (message.type !== "result") throw new Error("the skill gave no result");
    if (!message.ok) throw new Error(message.error);
    return message.content;
  };
}

/**
 * The scheduling and task services: translators over the app's actions
 * (which check the params). A job or task a tainted turn creates carries
 * the turn's taint, so its runs start tainted: its prompt may carry the
 * injection. Refusals reach the model as Errors; a missing task or job says
 * where to look.
 */
function backgroundServices(app: AppActions): HobServices {
  return {
    "schedule.add"(params, context) {
      return Promise.resolve(
        app.schedules.add(params as NewScheduleInput, { taint: context.tainted }),
      );
    },
    "schedule.list"() {
      return Promise.resolve(app.schedules.list());
    },
    "schedule.cancel"(params) {
      return Promise.resolve(notFound(
        () => app.schedules.remove(params as ScheduleKeyInput),
        () => `No scheduled job '${(params as ScheduleKeyInput).key}'; list_tasks shows them`,
      ));
    },
    "tasks.add"(params, context) {
      return Promise.resolve(app.tasks.add(params as NewTaskInput, { taint: context.tainted }));
    },
    "tasks.list"(params) {
      const { status } = (params ?? {}) as ListTasksInput;
      return Promise.resolve(app.tasks.list({ status, limit: 100 }));
    },
    "tasks.get"(params) {
      return Promise.resolve(notFound(
        () => app.tasks.get(params as TaskIdInput),
        () => `No background task ${(params as TaskIdInput).id}; list_tasks shows them`,
      ));
    },
    "tasks.cancel"(params) {
      return Promise.resolve(app.tasks.cancel(params as TaskIdInput));
    },
  };
}

/** Runs an action, rewording its `not_found` refusal for the model. */
function notFound<T>(action: () => T, message: () => string): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof ActionError && error.code === "not_found") throw new Error(message());
    throw error;
  }
}

/**
 * `/name input` in chat runs the skill `name`.
 *
 * @example
 * ```ts
 * agent.commands = createWorkflowCommands(toolbox, hob);
 * ```
 */
export function createWorkflowCommands(toolbox: Toolbox, { runSkill }: ServiceSet): CommandPort {
  return {
    match(message) {
      const found = /^\/([a-z][a-z0-9_-]{0,63})(?:\s+([\s\S]*))?$/.exec(message.trim());
      if (!found || !toolbox.workflows.has(found[1])) return null;
      return { name: found[1], input: (found[2] ?? "").trim() };
    },
    async run(name, input, context) {
      const started = performance.now();
      let result = "";
      let failed = false;
      try {
        result = await runSkill(name, input, {
          tool: `/${name}`,
          conversation_id: context.conversation_id,
          depth: context.depth ?? 0,
          signal: context.signal,
          emit: context.emit,
          model: context.model,
          source: "skill",
        });
        return result;
      } catch (error) {
        failed = true;
        result = (error as Error).message;
        throw error;
      } finally {
        toolbox.events.record({
          conversation_id: context.conversation_id,
          tool_call_id: null,
          tool: `/${name}`,
          arguments: JSON.stringify({ input }),
          result,
          is_error: failed,
          duration_ms: performance.now() - started,
          permissions: { ...NO_PERMISSIONS },
          approval: "owner",
          approval_id: null,
          source: "skill",
        });
      }
    },
  };
}

function toolContext(context: ServiceCallContext): ToolCallContext {
  return {
    conversation_id: context.conversation_id,
    signal: context.signal,
    emit: context.emit,
    depth: context.depth,
    model: context.model,
    tainted: context.tainted,
    seen: context.seen,
  };
}

/** One answer from the turn's model, for analyze_image and skills. */
async function complete(
  agent: AgentDeps,
  context: ServiceCallContext & { kind: string },
  prompt: string,
  system: string | undefined,
  images: ImageContent[] | undefined,
): Promise<string> {
  const model = context.model ?? agent.settings.defaultModel;
  const { text, error } = await completeText(agent.llm, {
    model,
    system: system ?? "Answer precisely and concisely.",
    prompt,
    images,
    maxOutputTokens: COMPLETE_MAX_TOKENS,
    signal: context.signal,
    purpose: {
      kind: context.kind,
      conversation_id: context.conversation_id ?? undefined,
      tool: context.tool,
    },
  });
  if (!error) return text;
  if (images?.length) {
    throw new Error(
      `the model ${model} could not look at the image (${error.message}) — it may have no vision; switch to a model that reads images`,
    );
  }
  throw new Error(error.message);
}
