/**
 * `hob doctor`: checks that hob can work — config, home, database, the
 * configured provider and whether its model calls tools, and Deno permissions —
 * and says how to fix what is wrong.
 */

import { join } from "node:path";
import { ConfigError, loadConfig } from "../config/load.ts";
import { scrubSecrets, secretValues } from "../config/redact.ts";
import { ensureHome, homeExposure, tokenPath } from "../home/home.ts";
import type { Hob } from "../app/hob.ts";
import { type Command, EXIT } from "./command.ts";
import { existingHome, openHomeAt } from "./open.ts";
import { green, out, outJson, red } from "./output.ts";

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** A warning does not fail the doctor. */
  warning?: boolean;
}

export const doctor: Command = {
  name: "doctor",
  summary: "Check config, provider, tool calling and permissions",
  help: `Usage: hob doctor [--skip-model] [--json] [--home DIR]

Checks, in order: the home and its token, hob.yaml, the database, Deno
permissions, whether the configured model's provider is reachable and lists
the model, and whether the model calls a tool when asked (one small request).

Options:
  --skip-model   do not send the tool-calling request to the model
  --json         print the checks as JSON
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help

Exit status: 0 when every check passes (warnings allowed), 1 otherwise.`,
  options: { json: { type: "boolean" }, "skip-model": { type: "boolean" } },
  positionals: [0, 0],
  async run(parsed) {
    const home = await existingHome(parsed);
    const checks: Check[] = [];
    // Once the config is read: what its secrets are, so no check's detail repeats one.
    let secrets: string[] = [];
    const report = (found: Check) => {
      const check = scrubSecrets(found, secrets);
      checks.push(check);
      if (!parsed.values.json) {
        const mark = check.ok ? (check.warning ? "!" : green("✓")) : red("✗");
        out(`${mark} ${check.name.padEnd(11)} ${check.detail}\n`);
      }
    };

    // A home made before some of its parts were: what is missing is filled in, as serve would.
    await ensureHome(home);
    report(await checkToken(home));
    let hob: Hob | undefined;
    try {
      const { config, path, fileExists } = await loadConfig({ home });
      secrets = secretValues(config);
      report({
        name: "config",
        ok: true,
        detail: fileExists ? `${path} is valid` : "no hob.yaml; using defaults",
      });
      hob = await openHomeAt(home);
      const integrity = hob.app.status.integrity();
      report({
        name: "database",
        ok: integrity === "ok",
        detail: `${join(home, "hob.db")}: integrity ${integrity}`,
      });
      report(await checkPermissions(home));
      report(await checkUserTools(hob));
      report(await checkSkills(hob));
      report(await checkMemory(hob));
      for (const server of await hob.app.mcp.connect()) {
        const waiting = server.pending.length
          ? `; ${server.pending.length} wait for your approval — 'hob mcp approve ${server.name}'`
          : "";
        report({
          name: `mcp ${server.name}`,
          ok: server.state !== "failed",
          warning: server.pending.length > 0,
          detail: server.state === "connected"
            ? `connected (${server.transport}${
              server.server ? `, ${server.server.name} ${server.server.version}` : ""
            }), ${server.tools.length} tools offered${waiting}`
            : server.error
            ? `${server.state}: ${server.error}`
            : server.state,
        });
      }
      for (const channel of await hob.app.channels.probe()) {
        report({ ...channel, name: `channel ${channel.name}` });
      }
      for (const check of voiceChecks(hob)) report(check);
      const reachable = await checkProvider(hob, report);
      if (reachable && !parsed.values["skip-model"]) {
        report(await checkToolCalling(hob));
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) {
        report({ name: "config", ok: false, detail: problem.message });
      }
    } finally {
      await hob?.close();
    }

    const failed = checks.filter((c) => !c.ok);
    if (parsed.values.json) {
      outJson({ ok: failed.length === 0, checks });
    } else {
      out(
        failed.length === 0 ? "\nAll checks passed.\n" : `\n${failed.length} check(s) failed.\n`,
      );
    }
    return failed.length === 0 ? EXIT.ok : EXIT.failure;
  },
};

/**
 * Speech in and out, audio conversion and video: a capability set up but
 * broken fails; one not set up is a warning that says how to set it up.
 */
function voiceChecks(hob: Hob): Check[] {
  const can = hob.app.speech.capabilities();
  const { speech } = hob.config;
  const check = (name: string, capability: typeof can.speak, configured: boolean): Check => ({
    name,
    ok: capability.available || !configured,
    warning: !capability.available,
    detail: capability.detail,
  });
  return [
    check("speech in", can.transcribe, !!speech.transcribe),
    check("speech out", can.speak, !!speech.speak),
    // Without ffmpeg, a command provider hears WAV only and analyze_video cannot work.
    check("ffmpeg", can.convert, false),
    check("video", can.video, false),
  ];
}

async function checkMemory(hob: Hob): Promise<Check> {
  const stats = await hob.app.memory.stats();
  const summary = `${stats.files} files, ${stats.chunks} chunks indexed`;
  if (!stats.embedder) {
    return {
      name: "memory",
      ok: true,
      detail: `${summary}; keyword search only (memory.embedder: none)`,
    };
  }
  const problem = await hob.app.memory.checkEmbedder();
  if (problem) {
    return {
      name: "memory",
      ok: true,
      warning: true,
      detail: `${summary}; keyword search only: ${problem}`,
    };
  }
  return {
    name: "memory",
    ok: true,
    detail: `${summary}; ${stats.embedder} works${
      stats.pending ? `, ${stats.pending} chunks still to embed` : ""
    }`,
  };
}

async function checkToken(home: string): Promise<Check> {
  try {
    const problems = await homeExposure(home);
    if (problems.length > 0) {
      return { name: "home", ok: true, warning: true, detail: problems.join("; ") };
    }
    await Deno.stat(tokenPath(home));
    return { name: "home", ok: true, detail: `${home}, private (0700, token 0600)` };
  } catch (error) {
    return {
      name: "home",
      ok: false,
      detail: `cannot read ${tokenPath(home)}: ${(error as Error).message}`,
    };
  }
}

async function checkPermissions(home: string): Promise<Check> {
  const wanted: [Deno.PermissionDescriptor, string][] = [
    [{ name: "read", path: home }, "--allow-read"],
    [{ name: "write", path: home }, "--allow-write"],
    [{ name: "net" }, "--allow-net"],
    [{ name: "env" }, "--allow-env"],
    [{ name: "run" }, "--allow-run"],
  ];
  const missing: string[] = [];
  for (const [descriptor, flag] of wanted) {
    const status = await Deno.permissions.query(descriptor);
    if (status.state !== "granted") missing.push(flag);
  }
  return missing.length === 0
    ? {
      name: "permissions",
      ok: true,
      detail: "read, write, net, env and run granted",
    }
    : {
      name: "permissions",
      ok: false,
      detail: `missing ${missing.join(" ")} — run hob with them (see deno.json's 'hob' task)`,
    };
}

async function checkProvider(
  hob: Hob,
  report: (c: Check) => void,
): Promise<boolean> {
  const model = hob.config.model;
  const providerName = model.slice(0, model.indexOf("/"));
  const problem = hob.app.models.check(model);
  if (problem) {
    report({ name: "provider", ok: false, detail: problem });
    return false;
  }
  const discovery = await hob.app.models.discover({ refresh: true });
  const status = discovery.providers.find((p) => p.name === providerName)!;
  if (!status.ok) {
    report({
      name: "provider",
      ok: false,
      detail: `${providerName}: ${status.error}`,
    });
    return false;
  }
  report({
    name: "provider",
    ok: true,
    detail: `${providerName} reachable, ${status.models} model(s)`,
  });
  const listed = discovery.models.some((m) => m.id === model);
  report({
    name: "model",
    ok: true,
    warning: !listed,
    detail: listed
      ? `${model} is available`
      : `${model} is not in ${providerName}'s list — 'hob models' shows what it has`,
  });
  return true;
}

async function checkToolCalling(hob: Hob): Promise<Check> {
  const { model } = hob.config;
  const { called, error } = await hob.app.models.probeToolCall(model);
  if (called) return { name: "tools", ok: true, detail: `${model} calls tools` };
  return {
    name: "tools",
    ok: false,
    detail: `${error} — pick a model with tool support for hob's tools to work`,
  };
}

/** The user's tools and workflows: how many loaded, and those refused with why. */
async function checkUserTools(hob: Hob): Promise<Check> {
  const { tools, skills: workflows, problems } = await hob.app.tools.list();
  const userTools = tools.filter((t) => t.origin.kind === "user").length;
  return {
    name: "user tools",
    ok: true,
    warning: problems.length > 0,
    detail: problems.length === 0
      ? `${userTools} loaded, ${workflows.length} workflow(s)`
      : `${userTools} loaded; refused: ${problems.map((p) => p.error).join("; ")}`,
  };
}

/** The Agent Skills: how many are used, and those that wait for the owner or are broken. */
async function checkSkills(hob: Hob): Promise<Check> {
  const { skills } = await hob.app.skills.list();
  const named = (state: string) =>
    skills.filter((skill) => skill.state === state).map((skill) => skill.name);
  const waiting = [...named("pending"), ...named("changed")];
  const invalid = skills.filter((skill) => skill.state === "invalid");
  const parts = [`${named("active").length} active`];
  if (waiting.length > 0) {
    parts.push(`${waiting.join(", ")} wait for your review — 'hob skill show NAME'`);
  }
  for (const skill of invalid) parts.push(`${skill.name} is invalid: ${skill.problem}`);
  return {
    name: "skills",
    ok: true,
    warning: waiting.length > 0 || invalid.length > 0,
    detail: parts.join("; "),
  };
}
