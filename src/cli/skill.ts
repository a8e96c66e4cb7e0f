/**
 * `hob skill`: the Agent Skills of the home — add one from a folder, an
 * archive or a URL, see what it is (the review), accept it (narrowing what it
 * may run unasked), list, show and remove them. A translator over the app's
 * skill actions (src/app/skills.ts) on the home opened here: the files and
 * hob.db are shared with a running `hob serve`, which sees every change at
 * its next turn.
 */

import { ActionError } from "../app/errors.ts";
import type { SkillDetail, SkillSummary } from "../app/skills.ts";
import type { SkillReview } from "../skills/review.ts";
import { revealed } from "../core/revealed.ts";
import { type Command, CommandError, EXIT, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, green, out, outJson, red } from "./output.ts";

/** Each action and how many words it takes after itself. */
const ACTIONS: Record<string, { min: number; max: number }> = {
  add: { min: 1, max: 1 },
  list: { min: 0, max: 0 },
  show: { min: 1, max: 1 },
  accept: { min: 1, max: 1 },
  remove: { min: 1, max: 1 },
};

/** An input's field as this command's flag, for errors. */
const FLAGS: Record<string, string> = { tools: "--tools", hosts: "--hosts" };

const STATES: Record<SkillSummary["state"], string> = {
  active: "active",
  pending: "waiting for your review",
  changed: "changed since you accepted it: not used",
  invalid: "invalid",
};

export const skill: Command = {
  name: "skill",
  summary: "Agent Skills: add one (reviewed before use), list, show, accept, remove",
  help: `Usage: hob skill add PATH|URL [--yes] [--tools LIST] [--hosts LIST] [--json]
       hob skill list [--json]
       hob skill show NAME [--instructions] [--json]
       hob skill accept NAME [--yes] [--tools LIST] [--hosts LIST] [--json]
       hob skill remove NAME

A skill is a folder with a SKILL.md (the open Agent Skills format): a name
and description every turn lists, instructions the model reads when it takes
a skill up, and files beside them. 'add' takes a folder, a .zip/.skill or
.tar.gz archive, or a URL (a GitHub repository or an archive), checks the
SKILL.md, copies the skill into the home's skills/ and shows what it is: the
tools it asks to run unasked, the tools its instructions name, its scripts and
what they reach for, every network address, and warnings. Nothing reaches a
model until you accept exactly the files shown; a skill whose files change
waits for you again.

A skill's instructions are its author's words: while a turn follows them,
every tool with an effect asks you first, but those you let it run unasked
(its allowed-tools, narrowed with --tools). Its scripts run in hob's tool
processes with only the hosts you grant (--hosts).

Options:
  --yes            accept what was shown (at a terminal, you are asked)
  --tools LIST     comma-separated: of its allowed-tools, those it may run unasked
                   (default: all it asks for; --tools "" for none)
  --hosts LIST     comma-separated: hosts its scripts may reach (default: none)
  --instructions   print the instructions whole
  --json           print machine-readable output
  --home DIR       hob home (default: $HOB_HOME or ~/.hob)
  -h, --help       show this help`,
  options: {
    yes: { type: "boolean" },
    tools: { type: "string" },
    hosts: { type: "string" },
    instructions: { type: "boolean" },
    json: { type: "boolean" },
  },
  positionals: [1, 2],
  async run(parsed) {
    const [action, name] = parsed.positionals;
    checkUsage(parsed.positionals);
    const json = parsed.values.json === true;
    const hob = await openHome(parsed);
    const skills = hob.app.skills;
    try {
      if (action === "list") return list(await skills.list(), json);
      if (action === "show") {
        return show(await skills.show({ name }), json, parsed.values.instructions === true);
      }
      if (action === "remove") {
        await skills.remove({ name });
        out(`Removed the skill '${name}'.\n`);
        return EXIT.ok;
      }
      const grant = {
        ...listFlag("tools", parsed.values.tools),
        ...listFlag("hosts", parsed.values.hosts),
      };
      const detail = action === "add"
        ? await skills.add({ source: name }, { by: "cli" })
        : await skills.show({ name });
      if (!json) out(describeReview(detail));
      if (detail.state === "invalid") return EXIT.failure;
      const yes = parsed.values.yes === true ||
        (await (await import("./prompter.ts")).confirmed(
          `Accept '${detail.name}' as shown? [y/N] `,
        ));
      if (!yes) {
        if (json) outJson(detail);
        else {
          out(red(
            `Not accepted: '${detail.name}' is installed and waits for you. Run 'hob skill accept ${detail.name} --yes' to accept what is shown, or 'hob skill remove ${detail.name}'.\n`,
          ));
        }
        return EXIT.ok;
      }
      const accepted = await skills.accept({ name: detail.name, hash: detail.hash, ...grant });
      if (json) outJson(accepted);
      else out(acceptedLine(accepted));
      return EXIT.ok;
    } catch (error) {
      if (error instanceof ActionError) {
        const flag = error.field ? FLAGS[error.field] : undefined;
        const message = flag ? error.message.replace(`'${error.field}'`, flag) : error.message;
        if (error.code === "invalid") throw new UsageError(`hob skill ${action}: ${message}`);
        throw new CommandError(message);
      }
      throw error;
    } finally {
      await hob.close();
    }
  },
};

/** Bad usage, refused (exit 2) before anything is opened. */
function checkUsage(positionals: string[]): void {
  const [action, ...rest] = positionals;
  const shape = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : null;
  if (!shape) {
    throw new UsageError(
      `hob skill: unknown action '${action}' — use ${
        Object.keys(ACTIONS).map((each) => `'${each}'`).join(", ")
      }`,
    );
  }
  if (rest.length < shape.min) {
    throw new UsageError(
      `hob skill ${action}: missing the ${action === "add" ? "folder, archive or URL" : "name"}`,
    );
  }
  if (rest.length > shape.max) {
    throw new UsageError(`hob skill ${action}: unexpected argument '${rest[shape.max]}'`);
  }
}

/** A comma-separated flag as a list; absent, nothing (the app's default). */
function listFlag(key: "tools" | "hosts", value: unknown): Record<string, string[]> {
  if (typeof value !== "string") return {};
  return { [key]: value.split(",").map((each) => each.trim()).filter(Boolean) };
}

function list(
  listing: { skills: SkillSummary[]; workflows: { name: string; description: string }[] },
  json: boolean,
): number {
  if (json) {
    outJson(listing);
    return EXIT.ok;
  }
  if (listing.skills.length === 0) {
    out("No Agent Skills yet. Add one with 'hob skill add PATH|URL'.\n");
  }
  for (const each of listing.skills) {
    const state = each.state === "active" ? green(STATES.active) : red(STATES[each.state]);
    out(`${each.name.padEnd(24)} ${state}\n`);
    const about = each.problem ?? each.description;
    out(`  ${dim(revealed(about.length > 160 ? `${about.slice(0, 157)}…` : about))}\n`);
  }
  if (listing.workflows.length > 0) {
    out("\nWorkflows (run as /name in chat):\n");
    for (const each of listing.workflows) out(`  /${each.name} — ${each.description}\n`);
  }
  return EXIT.ok;
}

function show(detail: SkillDetail, json: boolean, instructions: boolean): number {
  if (json) outJson(detail);
  else {
    out(describeReview(detail));
    if (instructions) out(`\n${revealed(detail.instructions)}\n`);
  }
  return EXIT.ok;
}

/** What the owner reads before accepting: the whole review, hidden characters shown. */
export function describeReview(detail: SkillDetail): string {
  const lines = [
    `${detail.name} — ${STATES[detail.state]}`,
    `  ${revealed(detail.description || detail.problem || "")}`,
  ];
  if (detail.source) {
    lines.push(dim(`  from ${detail.source}, added by ${detail.installed_by}`));
  }
  const review = detail.review;
  if (review) lines.push(...reviewLines(review));
  if (detail.state === "active") {
    lines.push(
      `  Runs unasked: ${detail.granted_tools.join(", ") || "nothing"}; its scripts may reach: ${
        detail.granted_hosts.join(", ") || "no host"
      }`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function reviewLines(review: SkillReview): string[] {
  const lines: string[] = [];
  if (review.license) lines.push(dim(`  license: ${revealed(review.license)}`));
  lines.push("  Tools it asks to run unasked (allowed-tools):");
  if (review.allowed_tools.length === 0) lines.push("    none");
  for (const tool of review.allowed_tools) {
    const mapped = tool.tool ? `hob's ${tool.tool} (${tool.side_effect})` : "no such tool in hob";
    const note = tool.grantable ? "" : dim(" — never run unasked: its calls ask");
    lines.push(`    ${revealed(tool.listed)} → ${mapped}${tool.tool ? note : ""}`);
  }
  lines.push(`  Tools its instructions name: ${review.tools_named.join(", ") || "none"}`);
  lines.push(`  Scripts: ${review.scripts.length === 0 ? "none" : ""}`);
  for (const script of review.scripts) {
    const reaches = script.needs.length ? script.needs.join(", ") : "nothing outside itself";
    const hosts = script.hosts.length ? ` (${script.hosts.join(", ")})` : "";
    lines.push(`    ${revealed(script.path)}: ${script.runs}; reaches ${reaches}${hosts}`);
  }
  lines.push(`  Network addresses: ${review.addresses.join(", ") || "none"}`);
  const bytes = review.files.reduce((sum, file) => sum + file.size, 0);
  lines.push(
    `  Files: ${review.files.length} (${
      (bytes / 1024).toFixed(1)
    } KB); instructions ${review.size.lines} lines`,
  );
  for (const warning of review.warnings) lines.push(red(`  ! ${revealed(warning)}`));
  lines.push(dim(`  hash ${review.hash}`));
  return lines;
}

function acceptedLine(detail: SkillDetail): string {
  return `${green("Accepted")} '${detail.name}': models see it from the next turn. Runs unasked: ${
    detail.granted_tools.join(", ") || "nothing"
  }; scripts may reach: ${detail.granted_hosts.join(", ") || "no host"}.\n`;
}
