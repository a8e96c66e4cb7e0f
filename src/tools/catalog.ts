/**
 * The built-in tools, in the order the model sees them. Both the hob process
 * (for their definitions) and every tool Worker (to run them) load this list,
 * so tool modules keep heavy libraries behind dynamic imports in `run`.
 */

import type { ToolDefinition } from "./definition.ts";
import analyzeImage from "./builtin/analyze_image.ts";
import analyzeVideo from "./builtin/analyze_video.ts";
import buildSkill from "./builtin/build_skill.ts";
import buildTool from "./builtin/build_tool.ts";
import editFile from "./builtin/edit_file.ts";
import emailFile from "./builtin/email_file.ts";
import fetchUrl from "./builtin/fetch_url.ts";
import getTime from "./builtin/get_time.ts";
import listDirectory from "./builtin/list_directory.ts";
import listSkills from "./builtin/list_skills.ts";
import logNote from "./builtin/log_note.ts";
import memoryAdd from "./builtin/memory_add.ts";
import memoryGet from "./builtin/memory_get.ts";
import memoryWrite from "./builtin/memory_write.ts";
import rememberThis from "./builtin/remember_this.ts";
import searchMemory from "./builtin/search_memory.ts";
import searchConversations from "./builtin/search_conversations.ts";
import viewConversation from "./builtin/view_conversation.ts";
import queryJson from "./builtin/query_json.ts";
import readCsv from "./builtin/read_csv.ts";
import readFile from "./builtin/read_file.ts";
import readJson from "./builtin/read_json.ts";
import runCode from "./builtin/run_code.ts";
import runCommand from "./builtin/run_command.ts";
import runPython from "./builtin/run_python.ts";
import runSkill from "./builtin/run_skill.ts";
import searchFiles from "./builtin/search_files.ts";
import sleep from "./builtin/sleep.ts";
import searchInFiles from "./builtin/search_in_files.ts";
import spawnAgent from "./builtin/spawn_agent.ts";
import webSearch from "./builtin/web_search.ts";
import writeFile from "./builtin/write_file.ts";
import scheduleTask from "./builtin/schedule_task.ts";
import listTasks from "./builtin/list_tasks.ts";
import cancelTask from "./builtin/cancel_task.ts";
import createTask from "./builtin/create_task.ts";
import viewTask from "./builtin/view_task.ts";

// deno-lint-ignore no-explicit-any
export const BUILTIN_TOOLS: ToolDefinition<any>[] = [
  readFile,
  writeFile,
  editFile,
  listDirectory,
  searchFiles,
  searchInFiles,
  runCommand,
  fetchUrl,
  webSearch,
  runCode,
  runPython,
  readCsv,
  readJson,
  queryJson,
  analyzeImage,
  analyzeVideo,
  emailFile,
  spawnAgent,
  buildTool,
  buildSkill,
  runSkill,
  listSkills,
  searchMemory,
  memoryGet,
  rememberThis,
  memoryAdd,
  logNote,
  memoryWrite,
  searchConversations,
  viewConversation,
  scheduleTask,
  listTasks,
  cancelTask,
  createTask,
  viewTask,
  getTime,
  sleep,
];
