/**
 * What the owner is shown before a skill is accepted: its description, the
 * tools its `allowed-tools` would run unasked and those its instructions
 * name, every script with how hob would run it and what it would need, every
 * network address any file names, and warnings for what hostile skills do
 * (reach for hob's token or home, install more skills, pipe downloads into a
 * shell, hide text). Read from the files alone: nothing is run. Knows text
 * and tool names, not where they came from.
 */

import { revealed } from "../core/revealed.ts";
import type { SkillFrontMatter } from "./format.ts";
import type { SkillFile } from "./folder.ts";

/** What a hob tool is, as far as a review needs to know. */
export interface KnownTool {
  name: string;
  side_effect: "none" | "local" | "external";
}

/** How hob runs a script of a skill. */
export type ScriptRun =
  /** TypeScript or JavaScript: in a tool process of its own, with only what was granted. */
  | "tool process"
  /** Anything else (Python, shell): only through run_command or run_python, which ask each time. */
  | "asks each time";

/** One script of a skill and what it would need. */
export interface ScriptReview {
  path: string;
  language: "typescript" | "javascript" | "python" | "shell" | "other";
  runs: ScriptRun;
  /** What its code reaches for: `read`, `write`, `net`, `env`, `run`, `ffi`, `sys`. */
  needs: string[];
  /** Host names it names (the only ones `net` could be granted for). */
  hosts: string[];
}

/** A tool the skill's `allowed-tools` lists. */
export interface AllowedToolReview {
  /** As the skill wrote it (`Bash(git:*)`, `Read`, `read_file`). */
  listed: string;
  /** hob's tool of that name, when there is one. */
  tool: string | null;
  side_effect: KnownTool["side_effect"] | null;
  /**
   * Whether the owner can let it run unasked: hob grants a tool whole, so an
   * entry limited to some of its calls (`Bash(git:*)`) is never granted — its
   * calls ask, as any other tool's do.
   */
  grantable: boolean;
}

/** The review of one skill. */
export interface SkillReview {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  allowed_tools: AllowedToolReview[];
  /** hob tools the instructions name, whether or not `allowed-tools` lists them. */
  tools_named: string[];
  scripts: ScriptReview[];
  /** Every host any file names. */
  addresses: string[];
  files: { path: string; size: number }[];
  /** Instruction lines and characters. */
  size: { lines: number; chars: number };
  warnings: string[];
  hash: string;
}

/** Other assistants' names for hob's tools, as skills written for them list them. */
const ALIASES: Record<string, string> = {
  read: "read_file",
  write: "write_file",
  edit: "edit_file",
  bash: "run_command",
  glob: "search_files",
  grep: "search_in_files",
  webfetch: "fetch_url",
  websearch: "web_search",
  ls: "list_directory",
};
const SCRIPT_LANGUAGES: Record<string, ScriptReview["language"]> = {
  ts: "typescript",
  mts: "typescript",
  js: "javascript",
  mjs: "javascript",
  py: "python",
  sh: "shell",
  bash: "shell",
};
const NEEDS: [string, RegExp][] = [
  [
    "read",
    /\bDeno\.(readFile|readTextFile|readDir|open|stat|lstat|realPath)\b|\bfs\.(read|stat)|\bopen\(/,
  ],
  [
    "write",
    /\bDeno\.(writeFile|writeTextFile|mkdir|remove|rename|create)\b|\bfs\.(write|mkdir|rm|unlink)|\bopen\([^)]*["'][wa]/,
  ],
  [
    "net",
    /\bfetch\(|\bDeno\.(connect|listen)\b|\brequests\.|\burllib\b|\bhttpx\b|\bcurl\b|\bwget\b|\bWebSocket\b/,
  ],
  ["env", /\bDeno\.env\b|\bprocess\.env\b|\bos\.environ\b|\bgetenv\b|\$\{?[A-Z_]{3,}\}?/],
  ["run", /\bDeno\.(Command|run)\b|\bchild_process\b|\bsubprocess\b|\bos\.system\b|\bexec\(/],
  ["ffi", /\bDeno\.dlopen\b|\bctypes\b/],
  ["sys", /\bDeno\.(hostname|osRelease|systemMemoryInfo|networkInterfaces)\b/],
];
const URL_PATTERN = /\bhttps?:\/\/([a-z0-9.-]+\.[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?/gi;
const RED_FLAGS: [RegExp, string][] = [
  [
    /\.hob\b|hob\.yaml|\bHOB_HOME\b|\/token\b|~\/\.ssh|\.ssh\/|\bid_(?:rsa|ed25519)\b|\.aws\/credentials|\.netrc\b|\/etc\/(?:passwd|shadow)\b|\bkeychain\b/i,
    "reaches for hob's home or well-known secret files",
  ],
  [
    /\bbuild_skill\b|\bbuild_tool\b|\bhob skill add\b|install (?:another|more|other|new|this|these) skills?\b|(?:\.hob|\.claude|\.codex)\/skills\b/i,
    "talks of installing skills or building tools",
  ],
  [
    /\|\s*(?:ba|z)?sh\b|\bcurl\b[^\n|]*\|\s*(?:python|node|deno|perl)\b/i,
    "pipes a download into a program",
  ],
  [
    /ignore (?:all |your |any |previous |prior |the )*(?:instructions|rules)|do not tell the user|don't tell the user|without asking (?:the user|them)/i,
    "tells the model to ignore its rules or keep things from you",
  ],
];
/** Characters that hide or reorder text (escapes, zero-width, direction overrides). */
// deno-lint-ignore no-control-regex
const DECEPTIVE = /[\u001b\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069]/;
/** Files read for their words, not instructions: a licence's wording is not a warning. */
const LEGAL = /^(?:LICEN[CS]E|NOTICE|COPYING)(?:\.[a-z]+)?$/i;

/**
 * Reviews a skill read from its folder.
 *
 * @example
 * ```ts
 * const review = reviewSkill(front, body, folder.files, folder.hash, registryTools);
 * review.scripts; // [{ path: "scripts/fill.ts", runs: "tool process", needs: ["read"], … }]
 * ```
 */
export function reviewSkill(
  front: SkillFrontMatter,
  body: string,
  files: SkillFile[],
  hash: string,
  tools: KnownTool[],
): SkillReview {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const texts = files.map((file) => ({ path: file.path, text: textOf(file.bytes) }));
  const scripts = files.filter((file) => isScript(file.path)).map((file) =>
    reviewScript(file.path, textOf(file.bytes) ?? "")
  );
  const review: SkillReview = {
    name: front.name,
    description: front.description,
    allowed_tools: front.allowedTools.map((listed) => allowedTool(listed, byName)),
    tools_named: tools.map((tool) => tool.name).filter((name) =>
      new RegExp(`\\b${name}\\b`).test(body)
    ),
    scripts,
    addresses: hostsIn(texts.map((each) => each.text ?? "").join("\n")),
    files: files.map((file) => ({ path: file.path, size: file.bytes.length })),
    size: { lines: body.split("\n").length, chars: body.length },
    warnings: [...descriptionWarnings(front.description, tools), ...warningsOf(body, texts)],
    hash,
  };
  if (front.license) review.license = front.license;
  if (front.compatibility) review.compatibility = front.compatibility;
  return review;
}

/**
 * hob's tool for a name an `allowed-tools` list holds: its own name, another
 * assistant's (`Read`, `Bash(git:*)`), or none.
 *
 * @example
 * ```ts
 * hobToolName("Bash(git status:*)", new Set(["run_command"])); // "run_command"
 * ```
 */
export function hobToolName(listed: string, known: ReadonlySet<string>): string | null {
  if (known.has(listed)) return listed;
  const bare = listed.replace(/\(.*\)$/, "").toLowerCase();
  if (known.has(bare)) return bare;
  const alias = ALIASES[bare];
  return alias && known.has(alias) ? alias : null;
}

function allowedTool(listed: string, byName: Map<string, KnownTool>): AllowedToolReview {
  const tool = hobToolName(listed, new Set(byName.keys()));
  return {
    listed,
    tool,
    side_effect: tool ? byName.get(tool)!.side_effect : null,
    grantable: tool !== null && !/\(.*\)$/.test(listed),
  };
}

/** Whether a file is a script hob would have to run: under `scripts/`, or by its extension. */
export function isScript(path: string): boolean {
  return path.startsWith("scripts/") || Object.hasOwn(SCRIPT_LANGUAGES, extension(path));
}

/** How a script would run, from its extension. */
export function scriptLanguage(path: string): ScriptReview["language"] {
  return SCRIPT_LANGUAGES[extension(path)] ?? "other";
}

function reviewScript(path: string, code: string): ScriptReview {
  const language = scriptLanguage(path);
  return {
    path,
    language,
    runs: language === "typescript" || language === "javascript"
      ? "tool process"
      : "asks each time",
    needs: NEEDS.filter(([, pattern]) => pattern.test(code)).map(([need]) => need),
    hosts: hostsIn(code),
  };
}

/** The host names in `text`'s URLs, sorted, once each. */
export function hostsIn(text: string): string[] {
  const hosts = new Set<string>();
  for (const match of text.matchAll(URL_PATTERN)) hosts.add(match[1].toLowerCase());
  return [...hosts].sort();
}

/**
 * What a description should not do: it reaches the model in every turn,
 * unasked for, so one that names tools or addresses is trying to steer.
 */
function descriptionWarnings(description: string, tools: KnownTool[]): string[] {
  const named = tools.map((tool) => tool.name).filter((name) =>
    new RegExp(`\\b${name}\\b`).test(description)
  );
  const hosts = hostsIn(description);
  const warnings: string[] = [];
  if (named.length > 0) {
    warnings.push(
      `its description, which every turn reads, names tools (${
        named.join(", ")
      }): a description says what a skill is for, not what to do`,
    );
  }
  if (hosts.length > 0) {
    warnings.push(`its description, which every turn reads, names addresses (${hosts.join(", ")})`);
  }
  return warnings;
}

function warningsOf(body: string, texts: { path: string; text: string | null }[]): string[] {
  const warnings: string[] = [];
  for (const { path, text } of texts) {
    if (text === null || LEGAL.test(path)) continue;
    for (const [pattern, what] of RED_FLAGS) {
      const match = pattern.exec(text);
      if (match) warnings.push(`${path} ${what}: "${lineAround(text, match.index)}"`);
    }
    if (DECEPTIVE.test(text)) {
      warnings.push(`${path} holds invisible or control characters (shown as <U+…>)`);
    }
  }
  if (body.trim().length === 0) warnings.push("SKILL.md has no instructions");
  return warnings;
}

/** The line of `text` around `index`, cut to 120 characters, hidden characters shown. */
function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf("\n", index) + 1;
  const end = text.indexOf("\n", index);
  const line = text.slice(start, end < 0 ? undefined : end).trim();
  return revealed(line.length > 120 ? `${line.slice(0, 117)}…` : line);
}

/** The file as UTF-8 text, or null when it is not (an image, an archive). */
export function textOf(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function extension(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}
