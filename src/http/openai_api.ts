/**
 * `/v1`: hob behind the OpenAI Chat Completions API, so any OpenAI client
 * (the official SDKs, Open WebUI, editors) talks to the whole assistant —
 * identity, memory, tools, approvals. `model: "hob"` is the configured model;
 * `hob/<provider>/<model>` picks one. A request's own `tools` go to the model
 * as client-side tools: their calls come back to the client in the standard
 * shape, and hob's own tool calls stay inside the turn.
 *
 * The API is stateless and hob's conversations are not: each reply's history
 * is fingerprinted, so a client that sends the same history back with one
 * more message continues the same hob conversation instead of starting anew.
 * The turn itself goes through the app's turn action (src/app), so its last
 * message and its model are checked as `POST /api/chat` checks them; this
 * module only translates OpenAI's wire format to it and back.
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentEvent, ChatMessage, ToolCall, ToolSpec, Usage } from "../core/types.ts";
import type { Hob } from "../app/hob.ts";
import { ActionError } from "../app/errors.ts";
import { unstorableText } from "../core/storable.ts";
import { jsonBody } from "./validate.ts";
import { untrusted } from "../core/untrusted.ts";
import { streamErrorEvent } from "./errors.ts";

/** What a client names to get hob's configured model. */
const HOB_MODEL = "hob";
/** Longest text of all messages together, in characters. */
const MAX_CONTENT_CHARS = 2_000_000;

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const content = z.union([z.string(), z.array(contentPart), z.null()]).optional();
const toolCall = z.looseObject({
  id: z.string().min(1).max(200),
  type: z.literal("function").optional(),
  function: z.looseObject({ name: z.string().min(1).max(200), arguments: z.string().default("") }),
});
const message = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content }),
  z.looseObject({ role: z.literal("developer"), content }),
  z.looseObject({ role: z.literal("user"), content }),
  z.looseObject({
    role: z.literal("assistant"),
    content,
    tool_calls: z.array(toolCall).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), content, tool_call_id: z.string().min(1).max(200) }),
]);
const functionTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "tool names use letters, digits, '_', '-'"),
    description: z.string().max(10_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
/** The request body; unknown fields (temperature, top_p, …) are accepted and ignored. */
export const chatCompletionBody = z.looseObject({
  model: z.string().min(1).max(200),
  messages: z.array(message).min(1).max(10_000),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(functionTool).max(128).optional(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
});
type Body = z.output<typeof chatCompletionBody>;
type Message = z.output<typeof message>;

/**
 * The `/v1` routes (behind the same token as `/api`).
 *
 * @example
 * ```ts
 * api.route("/v1", openAiRoutes(hob));
 * ```
 */
export function openAiRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get("/models", async (c) => {
    const report = await hob.app.models.discover();
    const created = Math.floor(Date.now() / 1000);
    const ids = [HOB_MODEL, ...report.models.map((m) => `hob/${m.id}`)];
    return c.json({
      object: "list",
      data: [...new Set(ids)].map((id) => ({ id, object: "model", created, owned_by: "hob" })),
    });
  });
  routes.post("/chat/completions", (c) => chatCompletion(c, hob));
  return routes;
}

/**
 * `POST /chat/completions`: the request parsed, its model named, its
 * history mapped onto a hob conversation, the turn started through the turn
 * action, and the reply shaped as OpenAI's, streamed or whole.
 */
async function chatCompletion(c: Context, hob: Hob): Promise<Response> {
  const body = await parseRequest(c);
  if (body instanceof Response) return body;
  const model = chooseModel(c, body.model);
  if (model instanceof Response) return model;
  const plan = planTurn(hob, body);
  if (typeof plan === "string") return openAiError(c, 400, plan, "messages");

  const controller = new AbortController();
  c.req.raw.signal.addEventListener("abort", () => controller.abort());
  const events = await startTurn(hob, plan, model, controller.signal);
  if (events instanceof ActionError) return turnRefusal(c, events);
  const completion: Completion = {
    id: `chatcmpl-${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    clientNames: new Set(plan.clientTools.map((tool) => tool.name)),
    includeUsage: Boolean(body.stream_options?.include_usage),
    remember: (turn) => rememberHistory(hob, plan.fingerprintBase, turn),
  };
  return body.stream
    ? streamCompletion(c, events, controller, completion)
    : await wholeCompletion(c, events, completion);
}

/** The body, checked against {@linkcode chatCompletionBody}; an OpenAI-shaped 400 when it does not fit. */
async function parseRequest(c: Context): Promise<Body | Response> {
  const raw = await jsonBody(c);
  if (raw instanceof Error) return openAiError(c, 400, raw.message, null, "invalid_json");
  const fault = unstorableText(raw);
  if (fault) return openAiError(c, 400, `'${fault.field}': ${fault.problem}`, fault.field);
  const parsed = chatCompletionBody.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue.path.map(String).join(".") || null;
  return openAiError(c, 400, `${param ? `'${param}': ` : ""}${issue.message}`, param);
}

/** The hob model a request names ("" for the configured one), or OpenAI's 404 when it names none. */
function chooseModel(c: Context, requested: string): string | Response {
  const model = modelOf(requested);
  if (model === undefined) {
    return openAiError(
      c,
      404,
      `The model '${requested}' does not exist: use 'hob' or 'hob/<provider>/<model>' (GET /v1/models lists them)`,
      "model",
      "model_not_found",
    );
  }
  // Whether hob can use it is the turn action's to say: its refusal is this same 404 (turnRefusal).
  return model;
}

/** The turn, through the turn action; its refusal is returned for the caller to word. */
async function startTurn(
  hob: Hob,
  plan: TurnPlan,
  model: string,
  signal: AbortSignal,
): Promise<AsyncGenerator<AgentEvent> | ActionError> {
  try {
    return await hob.app.conversations.turn(
      { message: plan.message, conversation_id: plan.conversationId, model: model || undefined },
      {
        signal,
        instructions: plan.instructions,
        clientTools: plan.clientTools,
        seed: plan.seed,
        resume: plan.resume,
        origin: "v1",
      },
    );
  } catch (error) {
    if (error instanceof ActionError) return error;
    throw error;
  }
}

/** A refusal of the turn action as OpenAI words it: a model is not found, anything else is the messages' fault. */
function turnRefusal(c: Context, error: ActionError): Response {
  if (error.field === "model") {
    return openAiError(c, 404, error.message, "model", "model_not_found");
  }
  const problem = error.field === "message"
    ? `The last user message: ${error.issue?.message}`
    : error.message;
  return openAiError(c, 400, problem, "messages");
}

/** What every chunk or reply of one completion carries, and what it does when done. */
interface Completion {
  id: string;
  created: number;
  /** The model as the client named it. */
  model: string;
  /** The client's own tools: their calls go back to the client. */
  clientNames: Set<string>;
  /** A streamed reply ends with a usage chunk. */
  includeUsage: boolean;
  /** Remembers the history with this reply, so the client's next request continues it. */
  remember(turn: TurnRecord): void;
}

/**
 * The reply as `chat.completion.chunk` events, `[DONE]` last; a client that
 * leaves stops the turn. A turn that failed, also after some text, ends with
 * an error object instead of a finish chunk.
 */
function streamCompletion(
  c: Context,
  events: AsyncGenerator<AgentEvent>,
  controller: AbortController,
  completion: Completion,
): Response {
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => controller.abort());
    const send = (data: unknown) => stream.writeSSE({ data: JSON.stringify(data) });
    await send(chunk(completion, { role: "assistant", content: "" }, null));
    const turn = newTurnRecord();
    try {
      for await (const event of events) {
        if (stream.aborted) continue; // the turn goes on and saves what it has
        const delta = deltaOf(turn, event, completion.clientNames);
        if (delta) await send(chunk(completion, delta, null));
      }
    } catch (error) {
      // Begun streams cannot change their status: the error goes in the stream (a full disk…).
      const { code, message } = streamErrorEvent(error, "POST /v1/chat/completions");
      turn.error = { code, message };
    }
    if (stream.aborted) return;
    // A model that failed midway ends the stream with the error, not as if it had finished.
    if (turn.error) {
      await send({
        error: { message: turn.error.message, type: "server_error", code: turn.error.code },
      });
    } else {
      completion.remember(turn);
      await send(chunk(completion, {}, finishReason(turn)));
      if (completion.includeUsage) {
        await send({ ...chunk(completion, {}, null), choices: [], usage: usageOf(turn.usage) });
      }
    }
    await stream.writeSSE({ data: "[DONE]" });
  });
}

/** Folds one event into the record; what the client should see of it, as a chunk's delta. */
function deltaOf(
  turn: TurnRecord,
  event: AgentEvent,
  clientNames: Set<string>,
): Record<string, unknown> | null {
  const record = recordEvent(turn, event, clientNames);
  if (event.type === "text") return { content: event.text };
  if (record !== "client_call") return null;
  const call = turn.clientCalls.at(-1)!;
  return {
    tool_calls: [{
      index: turn.clientCalls.length - 1,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }],
  };
}

/** One `chat.completion.chunk`. */
function chunk(completion: Completion, delta: Record<string, unknown>, finish: string | null) {
  return {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  };
}

/**
 * The reply as one `chat.completion`; a 502 when the model failed, before or
 * during its reply (what it wrote is in the error's `hob` field).
 */
async function wholeCompletion(
  c: Context,
  events: AsyncGenerator<AgentEvent>,
  completion: Completion,
): Promise<Response> {
  const turn = newTurnRecord();
  for await (const event of events) recordEvent(turn, event, completion.clientNames);
  if (turn.error) {
    return c.json({
      error: {
        message: turn.error.message,
        type: "server_error",
        param: null,
        code: turn.error.code,
      },
      hob: { conversation_id: turn.conversationId, status: turn.status, content: turn.text },
    }, 502);
  }
  completion.remember(turn);
  const calls = turn.clientCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return c.json({
    id: completion.id,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: turn.text || (calls.length ? null : ""),
        ...(calls.length ? { tool_calls: calls } : {}),
        refusal: null,
      },
      finish_reason: finishReason(turn),
      logprobs: null,
    }],
    usage: usageOf(turn.usage),
    // Which hob conversation this went into, for clients that want to look.
    hob: { conversation_id: turn.conversationId, status: turn.status },
  });
}

/** The hob model id a request names: "" for the default, undefined when it names none. */
function modelOf(requested: string): string | undefined {
  if (requested === HOB_MODEL) return "";
  if (requested.startsWith(`${HOB_MODEL}/`) && requested.split("/").length >= 3) {
    return requested.slice(HOB_MODEL.length + 1);
  }
  return undefined;
}

interface TurnPlan {
  message: string;
  conversationId?: string;
  seed?: ChatMessage[];
  resume: boolean;
  instructions?: string;
  clientTools: ToolSpec[];
  /** The history the request sent, which the reply extends (and is fingerprinted with). */
  fingerprintBase: ChatMessage[];
}

/**
 * How a request maps onto hob's conversations: the system messages become
 * instructions; the history before the last user message (or before trailing
 * tool results) continues the conversation it matches, or seeds a new one.
 */
function planTurn(hob: Hob, body: Body): TurnPlan | string {
  const system: string[] = [];
  const history: ChatMessage[] = [];
  let size = 0;
  for (const m of body.messages as Message[]) {
    const text = textOf(m.content);
    size += text.length;
    if (m.role === "system" || m.role === "developer") system.push(text);
    else if (m.role === "user") history.push({ role: "user", content: text });
    else if (m.role === "assistant") {
      const calls: ToolCall[] = (m.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }));
      history.push({
        role: "assistant",
        content: text,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
    } else {
      const name = history.flatMap((h) => h.role === "assistant" ? h.tool_calls ?? [] : [])
        .find((call) => call.id === m.tool_call_id)?.name ?? "tool";
      // The client ran the tool: its result is outside text, like any other tool's.
      history.push({
        role: "tool",
        tool_call_id: m.tool_call_id,
        name,
        content: untrusted(`${name} (a tool of the API client)`, text),
      });
    }
  }
  if (size > MAX_CONTENT_CHARS) {
    return `The messages hold more than ${MAX_CONTENT_CHARS} characters`;
  }
  const clientTools = (body.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description ?? "",
    parameters: (tool.function.parameters as Record<string, unknown>) ??
      { type: "object", properties: {} },
  }));
  const instructions = system.join("\n\n") || undefined;

  // Trailing tool results answer the client's tool calls: the turn resumes after them.
  let tail = history.length;
  while (tail > 0 && history[tail - 1].role === "tool") tail--;
  const resume = tail < history.length;
  const lastUser = history.findLastIndex((h) => h.role === "user");
  if (lastUser < 0) return "There is no user message to answer";
  if (!resume && lastUser !== history.length - 1) {
    return "The last message must come from the user (or be tool results)";
  }
  const message = (history[lastUser] as { content: string }).content;
  const before = resume ? history.slice(0, tail) : history.slice(0, lastUser);
  const fresh = resume ? history.slice(tail) : [];
  const conversationId = hob.app.conversations.threadOf(fingerprint(before));
  return {
    message,
    conversationId,
    // A matched conversation holds the history already; a new one is seeded with it.
    seed: conversationId ? fresh : resume ? history : before,
    resume,
    instructions,
    clientTools,
    fingerprintBase: history,
  };
}

interface TurnRecord {
  conversationId: string;
  text: string;
  clientCalls: ToolCall[];
  status: string;
  usage: Usage;
  error: { code: string; message: string } | null;
}

function newTurnRecord(): TurnRecord {
  return {
    conversationId: "",
    text: "",
    clientCalls: [],
    status: "complete",
    usage: { input_tokens: 0, output_tokens: 0 },
    error: null,
  };
}

/** Folds one event into the record; says when it was a call for the client. */
function recordEvent(
  turn: TurnRecord,
  event: AgentEvent,
  clientNames: Set<string>,
): "client_call" | null {
  switch (event.type) {
    case "start":
      turn.conversationId = event.conversation_id;
      break;
    case "text":
      turn.text += event.text;
      break;
    case "tool_call":
      if (clientNames.has(event.name)) {
        turn.clientCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
        return "client_call";
      }
      break;
    case "error":
      turn.error = { code: event.code, message: event.message };
      break;
    case "done":
      turn.status = event.status;
      turn.usage = event.usage;
      break;
  }
  return null;
}

/** Remembers which conversation the history including this reply belongs to. */
function rememberHistory(hob: Hob, base: ChatMessage[], turn: TurnRecord): void {
  if (!turn.conversationId) return;
  const reply: ChatMessage = {
    role: "assistant",
    content: turn.text,
    ...(turn.clientCalls.length ? { tool_calls: turn.clientCalls } : {}),
  };
  hob.app.conversations.keepThread(fingerprint([...base, reply]), turn.conversationId);
}

/** A digest of what a history says (roles, texts, tool calls), as a client would send it back. */
function fingerprint(history: ChatMessage[]): string {
  const canonical = history.map((m) =>
    m.role === "assistant"
      ? ["a", m.content.trim(), (m.tool_calls ?? []).map((c) => [c.id, c.name])]
      : m.role === "tool"
      ? ["t", m.tool_call_id, m.content]
      : ["u", m.content]
  );
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex").slice(0, 32);
}

function textOf(value: Message["content"]): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  return value.filter((part) => part.type === "text").map((part) => part.text ?? "").join("\n");
}

function finishReason(turn: TurnRecord): string {
  if (turn.clientCalls.length > 0) return "tool_calls";
  if (turn.status === "max_iterations") return "length";
  return "stop";
}

function usageOf(usage: Usage) {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

function openAiError(
  c: Context,
  status: 400 | 404 | 502,
  message: string,
  param: string | null,
  code: string | null = null,
  type = "invalid_request_error",
): Response {
  return c.json({ error: { message, type, param, code } }, status);
}
