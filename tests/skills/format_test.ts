/** SKILL.md against the Agent Skills specification: every problem named by its field and rule. */

import { assertEquals } from "../helpers/assert.ts";
import { nameProblem, parseSkillMd, splitTools } from "../../src/skills/format.ts";

const skill = (front: string, body = "# Do it\n") => `---\n${front}\n---\n${body}`;

Deno.test("a valid SKILL.md: front matter, instructions, warnings for keys the specification lacks", () => {
  const parsed = parseSkillMd(
    skill(
      'name: pdf-forms\ndescription: "Fill PDF forms. Use when asked to fill one."\nlicense: Apache-2.0\ncompatibility: Needs python3\nmetadata:\n  author: acme\n  version: 2\nallowed-tools: Read Bash(npx playwright:*), Grep\nhidden: true',
      "\n# PDF forms\n\nSteps.\n",
    ),
    "pdf-forms",
  );
  assertEquals(parsed, {
    ok: true,
    front: {
      name: "pdf-forms",
      description: "Fill PDF forms. Use when asked to fill one.",
      license: "Apache-2.0",
      compatibility: "Needs python3",
      metadata: { author: "acme", version: "2" },
      allowedTools: ["Read", "Bash(npx playwright:*)", "Grep"],
    },
    body: "# PDF forms\n\nSteps.\n",
    warnings: ["'hidden' is not a field of the specification; ignored"],
  });
});

Deno.test("every problem at once, each naming its field", () => {
  const parsed = parseSkillMd(
    skill(
      `description: ${"x".repeat(1_025)}\ncompatibility: ""\nmetadata: [a]\nallowed-tools: 3`,
    ),
    "My_Skill",
  );
  assertEquals(parsed.ok, false);
  if (parsed.ok) return;
  assertEquals(parsed.problems.map((p) => p.field), [
    "folder",
    "name",
    "description",
    "compatibility",
    "metadata",
    "allowed-tools",
  ]);
  assertEquals(parsed.problems[1].rule, "is required");
  assertEquals(parsed.problems[2].rule, "must be at most 1024 characters (it is 1025)");
});

Deno.test("names: lower-case letters, digits and single hyphens, at most 64, equal to the folder", () => {
  assertEquals(nameProblem("pdf-2"), null);
  for (const bad of ["-pdf", "pdf-", "pd--f", "PDF", "pdf_forms", "", "a".repeat(65)]) {
    assertEquals(typeof nameProblem(bad), "string", bad);
  }
  assertEquals(nameProblem("pdf", "pdf-forms"), "must match the skill's folder name ('pdf-forms')");
  const mismatch = parseSkillMd(skill("name: pdf\ndescription: x"), "pdf-forms");
  assertEquals(mismatch.ok ? [] : mismatch.problems.map((p) => p.field), ["name"]);
});

Deno.test("no front matter, bad YAML, a list for front matter: refused naming the front matter", () => {
  for (const text of ["# Just Markdown\n", "---\nname: [unclosed\n---\n", "---\n- a\n- b\n---\n"]) {
    const parsed = parseSkillMd(text, "x");
    assertEquals(parsed.ok ? "" : parsed.problems[0].field, "front matter", text);
  }
});

Deno.test("allowed-tools splits on spaces and commas outside parentheses", () => {
  assertEquals(splitTools("Bash(agent-browser:*), Bash(npx agent-browser:*)"), [
    "Bash(agent-browser:*)",
    "Bash(npx agent-browser:*)",
  ]);
  assertEquals(splitTools(" read_file  write_file "), ["read_file", "write_file"]);
});
