/**
 * The Agent Skills format: a `SKILL.md` whose YAML front matter names and
 * describes the skill, then Markdown instructions. Checked against the open
 * specification — `name` 1–64 lower-case letters, digits and single hyphens,
 * equal to the folder's name; `description` 1–1,024 characters; optional
 * `license`, `compatibility` (≤ 500), `metadata` (a map of strings) and the
 * experimental `allowed-tools` (space-separated tool names). Every problem is
 * reported at once, each naming its field and the rule; keys the
 * specification does not define are kept as warnings (other assistants add
 * their own). Knows text, not files.
 */

import { isMap, parseDocument } from "yaml";

/** The front matter of a valid SKILL.md. */
export interface SkillFrontMatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** `allowed-tools`, split on spaces: the tools the author asks to run unasked. */
  allowedTools: string[];
}

/** One thing wrong with a SKILL.md: the field at fault and the rule it breaks. */
export interface SkillProblem {
  field: string;
  rule: string;
}

/** A SKILL.md read: its front matter, instructions and warnings, or every problem found. */
export type ParsedSkill =
  | { ok: true; front: SkillFrontMatter; body: string; warnings: string[] }
  | { ok: false; problems: SkillProblem[] };

/** The longest name, description and compatibility the specification allows. */
export const MAX_NAME = 64;
export const MAX_DESCRIPTION = 1_024;
export const MAX_COMPATIBILITY = 500;
/** Instructions longer than this many lines are allowed, with a warning (the specification's advice). */
const ADVISED_BODY_LINES = 500;

const KNOWN_KEYS = new Set([
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
]);
const FRONT = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Reads a SKILL.md that sits in a folder named `folder`.
 *
 * @example
 * ```ts
 * parseSkillMd("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n…", "pdf");
 * // { ok: true, front: { name: "pdf", description: "Fill PDF forms.", allowedTools: [] }, body: "# PDF\n…", warnings: [] }
 * parseSkillMd("---\ndescription: x\n---\n", "Pdf");
 * // { ok: false, problems: [{ field: "name", rule: "is required" }, …] }
 * ```
 */
export function parseSkillMd(text: string, folder: string): ParsedSkill {
  const match = FRONT.exec(text);
  if (!match) {
    return {
      ok: false,
      problems: [{
        field: "front matter",
        rule: "SKILL.md must start with YAML front matter between two '---' lines",
      }],
    };
  }
  const document = parseDocument(match[1], { uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        field: "front matter",
        rule: `is not valid YAML: ${error.message.split("\n")[0]}`,
      })),
    };
  }
  if (!isMap(document.contents)) {
    return {
      ok: false,
      problems: [{ field: "front matter", rule: "must be a YAML mapping of keys to values" }],
    };
  }
  const values = document.toJS() as Record<string, unknown>;
  const problems: SkillProblem[] = [];
  const warnings: string[] = [];
  const name = checkName(values.name, folder, problems);
  const description = checkText(values.description, "description", MAX_DESCRIPTION, problems);
  const license = optionalText(values.license, "license", Infinity, problems);
  const compatibility = optionalText(
    values.compatibility,
    "compatibility",
    MAX_COMPATIBILITY,
    problems,
  );
  const metadata = checkMetadata(values.metadata, problems);
  const allowedTools = checkAllowedTools(values["allowed-tools"], problems);
  for (const key of Object.keys(values)) {
    if (!KNOWN_KEYS.has(key)) {
      warnings.push(`'${key}' is not a field of the specification; ignored`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const body = text.slice(match[0].length).replace(/^\s*\n/, "");
  const lines = body.split("\n").length;
  if (lines > ADVISED_BODY_LINES) {
    warnings.push(
      `the instructions are ${lines} lines; the specification advises at most ${ADVISED_BODY_LINES}`,
    );
  }
  const front: SkillFrontMatter = { name: name!, description: description!, allowedTools };
  if (license !== undefined) front.license = license;
  if (compatibility !== undefined) front.compatibility = compatibility;
  if (metadata !== undefined) front.metadata = metadata;
  return { ok: true, front, body, warnings };
}

/**
 * Why `name` is not a valid skill name in a folder named `folder`, or null.
 *
 * @example
 * ```ts
 * nameProblem("pdf-forms", "pdf-forms"); // null
 * nameProblem("PDF", "PDF"); // "must be lower-case letters, digits and hyphens …"
 * ```
 */
export function nameProblem(name: string, folder?: string): string | null {
  if (name.length === 0) return "must not be empty";
  if (name.length > MAX_NAME) {
    return `must be at most ${MAX_NAME} characters (it is ${name.length})`;
  }
  if (!NAME.test(name)) {
    return "must be lower-case letters, digits and hyphens, not starting or ending with a hyphen, no two hyphens together";
  }
  if (folder !== undefined && folder !== name) {
    return `must match the skill's folder name ('${folder}')`;
  }
  return null;
}

function checkName(value: unknown, folder: string, problems: SkillProblem[]): string | undefined {
  // A folder hob could not name a skill after is wrong whatever the name says.
  const folderProblem = nameProblem(folder);
  if (folderProblem) problems.push({ field: "folder", rule: `'${folder}' ${folderProblem}` });
  if (value === undefined || value === null) {
    problems.push({ field: "name", rule: "is required" });
    return undefined;
  }
  if (typeof value !== "string") {
    problems.push({ field: "name", rule: "must be a string" });
    return undefined;
  }
  const problem = nameProblem(value, folderProblem ? undefined : folder);
  if (problem) problems.push({ field: "name", rule: problem });
  return value;
}

function checkText(
  value: unknown,
  field: string,
  max: number,
  problems: SkillProblem[],
): string | undefined {
  if (value === undefined || value === null) {
    problems.push({ field, rule: "is required" });
    return undefined;
  }
  return optionalText(value, field, max, problems);
}

function optionalText(
  value: unknown,
  field: string,
  max: number,
  problems: SkillProblem[],
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    problems.push({ field, rule: "must be a string" });
    return undefined;
  }
  const text = value.trim();
  if (text.length === 0) problems.push({ field, rule: "must not be empty" });
  else if (text.length > max) {
    problems.push({ field, rule: `must be at most ${max} characters (it is ${text.length})` });
  }
  return text;
}

function checkMetadata(
  value: unknown,
  problems: SkillProblem[],
): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    problems.push({ field: "metadata", rule: "must be a map of keys to strings" });
    return undefined;
  }
  const metadata: Record<string, string> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === "string" || typeof inner === "number" || typeof inner === "boolean") {
      metadata[key] = String(inner);
    } else problems.push({ field: `metadata.${key}`, rule: "must be a string" });
  }
  return metadata;
}

function checkAllowedTools(value: unknown, problems: SkillProblem[]): string[] {
  if (value === undefined || value === null) return [];
  // The specification says a space-separated string; some skills write a YAML list.
  const items = typeof value === "string"
    ? splitTools(value)
    : Array.isArray(value) && value.every((item) => typeof item === "string")
    ? value
    : null;
  if (!items) {
    problems.push({ field: "allowed-tools", rule: "must be a space-separated list of tool names" });
    return [];
  }
  return [...new Set(items.map((item) => item.trim()).filter(Boolean))];
}

/**
 * An `allowed-tools` string split on spaces and commas outside parentheses,
 * so `Bash(npx playwright:*)` stays one entry.
 *
 * @example
 * ```ts
 * splitTools("Read Bash(npx playwright:*), Grep"); // ["Read", "Bash(npx playwright:*)", "Grep"]
 * ```
 */
export function splitTools(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && /[\s,]/.test(char)) {
      if (current) items.push(current);
      current = "";
    } else current += char;
  }
  if (current) items.push(current);
  return items;
}
