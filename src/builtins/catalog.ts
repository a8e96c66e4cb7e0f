/**
 * The built-in tools, in the order the model sees them. Both the hob process
 * (for their definitions) and every tool Worker (to run them) load this list,
 * so tool modules keep heavy libraries behind dynamic imports in `run`.
 */

import type { ToolDefinition } from "../sandbox/definition.ts";
import analyzeImage from "./analyze_image.ts";
import analyzeVideo from "./analyze_video.ts";
import buildSkill from "./build_skill.ts";
import buildTool from "./build_tool.ts";
import editFile from "./edit_file.ts";
import emailFile from "./email_file.ts";
import fetchUrl from "./fetch_url.ts";
import getTime from "./get_time.ts";
import listDirectory from "./list_directory.ts";
import listSkills from "./list_skills.ts";
import logNote from "./log_note.ts";
import memoryAdd from "./memory_add.ts";
import memoryGet from "./memory_get.ts";
import memoryWrite from "./memory_write.ts";
import rememberThis from "./remember_this.ts";
import searchMemory from "./search_memory.ts";
import searchConversations from "./search_conversations.ts";
import viewConversation from "./view_conversation.ts";
import queryJson from "./query_json.ts";
import readCsv from "./read_csv.ts";
import readFile from "./read_file.ts";
import readJson from "./read_json.ts";
import runCode from "./run_code.ts";
import runCommand from "./run_command.ts";
import runPython from "./run_python.ts";
import runSkill from "./run_skill.ts";
import useSkill from "./use_skill.ts";
import readSkillFile from "./read_skill_file.ts";
import runSkillScript from "./run_skill_script.ts";
import searchFiles from "./search_files.ts";
import sleep from "./sleep.ts";
import searchInFiles from "./search_in_files.ts";
import spawnAgent from "./spawn_agent.ts";
import webSearch from "./web_search.ts";
import writeFile from "./write_file.ts";
import scheduleTask from "./schedule_task.ts";
import listTasks from "./list_tasks.ts";
import cancelTask from "./cancel_task.ts";
import createTask from "./create_task.ts";
import viewTask from "./view_task.ts";

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
  runSkillScript,
  listSkills,
  useSkill,
  readSkillFile,
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
