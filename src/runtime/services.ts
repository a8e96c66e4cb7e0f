/**
 * The services of the hob process that tools reach from their Workers by
 * message — the model, child agents, the registry, skills — and the chat
 * command port that runs skills as `/name input`. Each service is declared
 * once with its params' schema (service_params.ts): the input of the app
 * action it hands them to, received and parsed there, or its own; what it
 * takes and answers is checked against what tools send and read
 * (src/sandbox/services.ts). A tool only reaches the services its definition
 * declares.
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
import { actionService, service } from "./service_params.ts";
import type { AppActions } from "../app/app.ts";
import {
  type MemoryActions,
  memorySectionInput,
  memoryTextInput,
  readMemoryInput,
  searchMemoryInput,
} from "../app/memory.ts";
import type { ConversationActions } from "../app/conversations.ts";
import { ActionError } from "../app/errors.ts";
import { searchConversationsInput, viewConversationInput } from "../inputs/conversations.ts";
import { addSourceInput } from "../inputs/memory_sources.ts";
import { newScheduleInput, scheduleKeyInput } from "../inputs/schedules.ts";
import { listTasksInput, newTaskInput, taskIdInput } from "../inputs/tasks.ts";
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

// The params of the services that are their only parser; the others are the app actions' inputs.
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
const videoParams = z.object({
  path: z.string().min(1),
  count: z.number().int().min(1).max(16).default(8),
});
/** A listing's params: none. */
const noParams = z.object({});
/** Widest frame sent to a model, in pixels: enough to read, small enough to send many. */
const FRAME_WIDTH = 768;
/** Largest video looked at, in bytes. */
const MAX_VIDEO_BYTES = 2 * 1024 * 1024 * 1024;
/** Characters of a message read around a hit: the gist of each, the whole window in one answer. */
const VIEWED_MESSAGE_CHARS = 1_500;
/** Characters of the message the window is around: the one asked for, read more fully. */
const VIEWED_ANCHOR_CHARS = 6_000;
/** Background tasks list_tasks shows: the latest page of the queue, not its history. */
const LISTED_TASKS = 100;

/** The hob services, and the skill runner the chat commands share with them. */
export interface ServiceSet {
  /** Every service, as declared: each answers with the type its handler gives. */
  services: DeclaredServices;
  runSkill(name: string, input: string, context: ServiceCallContext): Promise<string>;
}

/** The services as {@linkcode hobServices} declares them. */
type DeclaredServices = ReturnType<typeof hobServices>;

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
  const services = hobServices(
    agent,
    toolbox,
    app,
    (name, input, context) => runSkill(name, input, context),
  );
  const runSkill = skillRunner(agent, toolbox, services);
  return { services, runSkill };
}

/**
 * Every service, each declared once with its params' schema: one the
 * service parses, or the input of the app action it hands them to.
 */
function hobServices(
  agent: AgentDeps,
  toolbox: Toolbox,
  app: AppActions,
  runSkill: ServiceSet["runSkill"],
) {
  return {
    ...memoryServices(app.memory, agent.store),
    ...conversationServices(app.conversations),
    ...modelServices(agent, (tool) => toolbox.workflows.has(tool)),
    ...backgroundServices(app),
    ...toolServices(toolbox, runSkill, agent.store),
    ...agentSkillServices(app.skills, agent.store),
    ...mediaServices(toolbox),
    ...skillScriptServices(app.skills, toolbox, () => agent.clock.now()),
  } satisfies HobServices;
}

/**
 * Memory search and writes, over the memory actions. What a tainted turn
 * writes to memory keeps the label, so every later turn that reads it is
 * tainted too: an injection cannot launder itself into a clean conversation
 * through memory.
 */
function memoryServices(memory: MemoryActions, conversations: ConversationStore) {
  const by = (context: ServiceCallContext) => writtenBy(context, conversations);
  return {
    "memory.search": actionService(
      searchMemoryInput,
      async (params) => (await memory.search(params)).hits,
    ),
    "memory.get": actionService(readMemoryInput, (params) => memory.read(params)),
    "memory.remember": actionService(
      memoryTextInput,
      (params, context) => memory.remember(params, by(context)),
    ),
    "memory.log": actionService(
      memoryTextInput,
      (params, context) => memory.log(params, by(context)),
    ),
    "memory.write": actionService(
      memorySectionInput,
      (params, context) => memory.writeSection(params, by(context)),
    ),
    "memory.add": actionService(addSourceInput, async (params, context) => {
      const added = await memory.addSource(params, by(context), context.signal);
      // The document's title is its own words: the tool's output is labelled as a whole.
      return { ...added, version: added.version?.id ?? null };
    }),
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
function conversationServices(conversations: ConversationActions) {
  const labelled = (text: string, source: string | null) =>
    source === null || isMarked(text) ? text : untrusted(source, text);
  return {
    "conversations.search": actionService(searchConversationsInput, async (params, context) => {
      const hits = await conversations.search(params, {
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
    }),
    "conversations.view": actionService(viewConversationInput, async (params) => {
      const view = await conversations.view(params);
      // The action took these: numbers, or digits it read as the numbers Number() makes of them.
      const isAnchor = (message: { id: number; position: number }) =>
        params.message_id !== undefined
          ? message.id === Number(params.message_id)
          : message.position === Number(params.position ?? 1);
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
    }),
  };
}

/** The turn's model: one answer, or a sub-agent's whole turn. */
function modelServices(agent: AgentDeps, isSkill: (tool: string) => boolean) {
  return {
    "model.complete": service(completeParams, ({ prompt, system, images }, context) => {
      const kind = isSkill(context.tool) ? "skill" : "tool";
      return complete(agent, { ...context, kind }, prompt, system, images);
    }),
    "agent.run": service(
      agentParams,
      ({ task, context: brief }, context) => runSubAgent(agent, context, task, brief),
    ),
  };
}

/**
 * Frames of a video, for analyze_video: the path is resolved inside the
 * tools' roots (as the tool's own would be), then ffmpeg reads it here.
 */
function mediaServices(toolbox: Toolbox) {
  return {
    "media.video_frames": service(videoParams, async ({ path, count }, context) => {
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
    }),
  };
}

/** Calling and building tools and skills. */
function toolServices(
  toolbox: Toolbox,
  runSkill: ServiceSet["runSkill"],
  conversations: ConversationStore,
) {
  return {
    "tools.call": service(toolCallParams, ({ name, args }, context) =>
      toolbox.registry.execute(
        { id: `skill_${crypto.randomUUID().slice(0, 8)}`, name, arguments: JSON.stringify(args) },
        { ...toolContext(context), source: "skill" },
      )),
    "tools.build": service(
      buildParams,
      ({ name, description, code }, context) =>
        toolbox.buildTool(name, description, code, writtenBy(context, conversations)),
    ),
    "skills.build": service(
      buildParams,
      ({ name, description, code }, context) =>
        toolbox.buildWorkflow(name, description, code, writtenBy(context, conversations)),
    ),
    "skills.list": service(noParams, () =>
      [...toolbox.workflows.values()].map((skill) => ({
        name: skill.name,
        description: skill.description,
      }))),
    "skills.run": service(
      skillParams,
      ({ name, input }, context) => runSkill(name, input, context),
    ),
  };
}

/**
 * An Agent Skill's instructions and files, over the skill actions (which
 * check the input, the skill's state and its hash, and label the author's words).
 */
function agentSkillServices(skills: SkillActions, conversations: ConversationStore) {
  return {
    "skills.create": actionService(createSkillInput, async (params, context) => {
      const by = writtenBy(context, conversations).author;
      const skill = await skills.create(params, by);
      return `Built the skill '${skill.name}' (${
        skill.review?.size.lines ?? 0
      } lines of instructions). Later turns list it; use_skill reads it.`;
    }),
    "skills.use": actionService(
      skillNameInput,
      async (params) => (await skills.instructions(params)).text,
    ),
    "skills.file": actionService(skillFileInput, (params) => skills.readFile(params)),
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
  services: Pick<HobServices, "tools.call" | "model.complete">,
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
function backgroundServices(app: AppActions) {
  return {
    "schedule.add": actionService(
      newScheduleInput,
      (params, context) => app.schedules.add(params, { taint: context.tainted }),
    ),
    "schedule.list": service(noParams, () => app.schedules.list()),
    "schedule.cancel": actionService(scheduleKeyInput, (params) =>
      notFound(
        () => app.schedules.remove(params),
        () => `No scheduled job '${params.key}'; list_tasks shows them`,
      )),
    "tasks.add": actionService(
      newTaskInput,
      (params, context) => app.tasks.add(params, { taint: context.tainted }),
    ),
    "tasks.list": actionService(
      listTasksInput,
      (params) => app.tasks.list({ ...params, limit: LISTED_TASKS }),
    ),
    "tasks.get": actionService(taskIdInput, (params) =>
      notFound(
        () => app.tasks.get(params),
        () => `No background task ${params.id}; list_tasks shows them`,
      )),
    "tasks.cancel": actionService(taskIdInput, (params) => app.tasks.cancel(params)),
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
