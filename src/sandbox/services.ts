/**
 * What each hob service takes and answers, by method: the contract between a
 * tool's Worker, which calls `context.services.call(method, params)`, and the
 * hob process, whose declaration of each service (src/runtime/services.ts) the
 * compiler checks against it — its schema must take these params, its answer
 * must hold these fields. The answers here are what tools read of them; both
 * cross the Worker boundary as structured clones, so plain data only. Types
 * only: it knows no service, no schema and no action.
 */

import type { ScriptOutcome } from "./skill_script.ts";

/** A task's state, as the task actions name it. */
type TaskState = "pending" | "in_progress" | "waiting" | "complete" | "failed" | "cancelled";

/** An image for the model, base64-encoded. */
interface ImageData {
  media_type: string;
  data: string;
}

/** A skill or a tool to build: hob's own TypeScript, written by a model. */
interface BuildParams {
  name: string;
  description: string;
  code: string;
}

/** A background task, as view_task shows it. */
interface TaskView {
  id: number;
  title: string;
  prompt: string;
  status: TaskState;
  priority: number;
  blocked_by: number[];
  output: string;
  waiting_reason: string | null;
  attempts: number;
  conversation_id: string | null;
  updated_at: string;
}

/** A scheduled job, as list_tasks shows it. */
interface JobLine {
  id: number;
  name: string;
  schedule: string;
  timezone: string;
  enabled: boolean;
  next_run: string | null;
  last_status: string | null;
  missed_runs: number;
}

/** A message read around a hit; `content` labelled when it is not the owner's or hob's own. */
interface ViewedLine {
  id: number;
  position: number;
  role: string;
  tool_name: string | null;
  /** The tools it called, by name. */
  called: string[];
  at: string;
  content: string;
  /** Characters left out of `content`. */
  cut: number;
}

/** Evenly spaced frames of a video, as JPEG images. */
export interface VideoFrames {
  duration_s: number;
  width: number;
  height: number;
  frames: ({ at: number } & ImageData)[];
}

/**
 * Every hob service a tool may call, by method: the params a tool sends and
 * what it reads of the answer. A tool reaches only the methods of the
 * capabilities it declares (`services: ["memory"]` for `memory.*`).
 */
export interface ServiceCalls {
  "memory.search": {
    params: { q: string; limit?: number };
    result: {
      path: string;
      start_line: number;
      end_line: number;
      heading: string;
      snippet: string;
      score: number;
    }[];
  };
  "memory.get": {
    params: { path: string; from?: number; lines?: number };
    result: { path: string; from: number; to: number; total_lines: number; text: string };
  };
  // The memory writes answer the file written, under memory/.
  "memory.remember": { params: { text: string }; result: string };
  "memory.log": { params: { text: string }; result: string };
  "memory.write": { params: { section: string; content: string }; result: string };
  "memory.add": {
    params: { source: string };
    result: { path: string; title: string; format: string; changed: boolean; truncated: boolean };
  };
  "conversations.search": {
    params: {
      q: string;
      conversation_id?: string;
      role?: "user" | "assistant" | "tool";
      limit?: number;
    };
    result: {
      conversation_id: string;
      title: string;
      kind: string;
      message_id: number;
      position: number;
      role: string;
      tool_name: string | null;
      at: string;
      snippet: string;
    }[];
  };
  "conversations.view": {
    params: { id: string; message_id?: number; position?: number; before?: number; after?: number };
    result: {
      conversation: { id: string; title: string; kind: string; message_count: number };
      messages: ViewedLine[];
    };
  };
  "model.complete": {
    params: { prompt: string; system?: string; images?: ImageData[] };
    result: string;
  };
  "agent.run": { params: { task: string; context?: string }; result: string };
  "media.video_frames": { params: { path: string; count?: number }; result: VideoFrames };
  "tools.call": {
    params: { name: string; args?: Record<string, unknown> };
    result: { content: string; is_error: boolean };
  };
  "tools.build": { params: BuildParams; result: string };
  "skills.build": { params: BuildParams; result: string };
  "skills.list": { params: Record<string, never>; result: { name: string; description: string }[] };
  "skills.run": { params: { name: string; input?: string }; result: string };
  "skills.create": {
    params: { name: string; description: string; instructions: string };
    result: string;
  };
  "skills.use": { params: { name: string }; result: string };
  "skills.file": { params: { name: string; path: string }; result: string };
  "skills.script": {
    params: { name: string; path: string; args?: string[]; stdin?: string; timeout?: number };
    result: ScriptOutcome;
  };
  "schedule.add": {
    params: {
      name: string;
      prompt: string;
      schedule: string;
      timezone?: string;
      missed_policy?: "run_once" | "skip";
      deliver?: "telegram" | "email" | "matrix";
    };
    result: {
      id: number;
      name: string;
      schedule: string;
      timezone: string;
      next_run: string | null;
    };
  };
  "schedule.list": { params: Record<string, never>; result: JobLine[] };
  "schedule.cancel": { params: { key: number | string }; result: { id: number; name: string } };
  "tasks.add": {
    params: { title: string; prompt?: string; priority?: number; blocked_by?: number[] };
    result: { id: number; title: string };
  };
  "tasks.list": {
    params: { status?: TaskState };
    result: {
      id: number;
      title: string;
      status: TaskState;
      priority: number;
      waiting_reason: string | null;
    }[];
  };
  "tasks.get": { params: { id: number }; result: TaskView };
  "tasks.cancel": { params: { id: number }; result: { id: number; title: string } };
}

/** A hob service's method: `memory.search`, `tasks.add`. */
export type ServiceMethod = keyof ServiceCalls;
/** What a tool sends to `M`. */
export type ServiceParams<M extends ServiceMethod> = ServiceCalls[M]["params"];
/** What a tool reads of `M`'s answer. */
export type ServiceResult<M extends ServiceMethod> = ServiceCalls[M]["result"];
