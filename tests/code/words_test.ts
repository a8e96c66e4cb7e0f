/**
 * Each of hob's words means one thing (docs/architecture.md, "Words that mean
 * one thing"): app the application layer, history what a model sees, a
 * channel Telegram, email or Matrix, the web the outside, a flush the
 * auto-flush, a worker a task worker, background the work done without a user
 * turn, a host a network host, a skill an Agent Skill. This test fails when
 * code in src/ uses one of them for the other thing again.
 */

import { join, relative } from "node:path";
import { assertEquals } from "../helpers/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A second meaning (only in the files `file` matches, when given), and the word used instead. */
const SECOND_MEANINGS: { pattern: RegExp; use: string; file?: RegExp }[] = [
  { pattern: /\bflush\w*Interval|\bFLUSH_INTERVAL/, use: "a draft is saved: draftSaveIntervalMs" },
  { pattern: /\bhost (services?|calls?)\b/i, use: "a tool calls hob's services" },
  { pattern: /\bHost(Services|Capability|Api|CallContext)\b/, use: "HobServices, ServiceName…" },
  { pattern: /\bcontext\.host\b|\bsetHost\b|\bcreateHost\b/, use: "context.services, setServices" },
  { pattern: /["']host(_reply)?["']\s*[:;,}]|type: "host/, use: 'the "service" messages' },
  {
    pattern: /\b(To|From)Worker\b|\bWorker(Permissions|Context)\b/,
    use: "ToSandbox, SandboxPermissions…",
  },
  { pattern: /\bbackground (run|embedding)\b/i, use: "deferred embedding" },
  {
    pattern: /\binterface Skill\b|\bloadSkills?\b|\bSKILL_NAME\b|toolbox\.skills\b/,
    use: "a TypeScript /name program is a workflow: Workflow, loadWorkflow, toolbox.workflows",
  },
  {
    pattern:
      /\bapp\s*[:=]\s*(new\s+)?Hono\b|\bcreateApp\b|\bAppOptions\b|(?<![.\w])app\.(route|use|all|on|onError|notFound|fetch|request|get|post|put|patch|delete)\(/,
    use: "a Hono instance is the API (createApi, api) or its routes (routes)",
  },
  {
    pattern:
      /\bFileHistory\b|\bHistory(Actions|Input|View)\b|\bcreateHistoryActions\b|\bhistory(OnFirstUse|Input)\b|\bmemory_history\.ts|\bmemory\/history\.ts|\.history\.(list|get|content|diff|files|memory|scan|watch|undone|versions)\b|\bmemory\.history\(/,
    use: "a file's writes are its versions: FileVersions, VersionActions, memory.versions()",
  },
  {
    pattern:
      /\b(Event|Frame)Channel\b|\beventChannel\b|\bevent_channel\.ts|\bsandbox\/channel\.ts|["']\.\/channel\.ts|\b(framed|message) channel\b|\b(closes?|end of) the channel\b/i,
    use: "frames to a tool process cross a pipe (frames.ts); events wait in a queue (eventQueue)",
  },
  {
    pattern: /\bwebRoutes\b|\bsrc\/web\b|["'](\.\.?\/)+web\/|\bweb framework\b/,
    use: "hob's own page is the page (src/page, pageRoutes); the web is outside addresses",
  },
  {
    file: /\bhttp\/background\.ts$/,
    pattern: /["'](\/api)?\/(usage|status|backup)\b|\bapp\.(usage|status|backups)\b/,
    use: "usage, status and backups are not background: src/http/usage.ts, status.ts, backups.ts",
  },
];

/** The lines of `source` that give a word its second meaning. */
export function wordProblems(path: string, source: string): string[] {
  const problems: string[] = [];
  source.split("\n").forEach((line, i) => {
    for (const { pattern, use, file } of SECOND_MEANINGS) {
      if (file && !file.test(path)) continue;
      if (pattern.test(line)) problems.push(`${path}:${i + 1} (${use}): ${line.trim()}`);
    }
  });
  return problems;
}

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

Deno.test("wordProblems catches a second meaning and passes the first", () => {
  assertEquals(wordProblems("a.ts", "const ms = settings.flushIntervalMs;").length, 1);
  assertEquals(wordProblems("a.ts", "await context.host.call('memory.get', {})").length, 1);
  assertEquals(wordProblems("a.ts", 'port.post({ type: "host", id });').length, 1);
  assertEquals(wordProblems("a.ts", "/** Answers the sandbox's host calls. */").length, 1);
  assertEquals(wordProblems("a.ts", "function f(m: ToWorker) {}").length, 1);
  assertEquals(wordProblems("a.ts", "// One background run at a time").length, 1);
  assertEquals(wordProblems("a.ts", "const skill = runtime.toolbox.skills.get(name);").length, 1);
  assertEquals(wordProblems("a.ts", "const app = new Hono();").length, 1);
  assertEquals(wordProblems("a.ts", ' * app.route("/api", skillRoutes(hob));').length, 1);
  assertEquals(
    wordProblems("a.ts", "const history = new FileHistory({ home, db, now });").length,
    1,
  );
  assertEquals(wordProblems("a.ts", "const versions = await memory.history({ path });").length, 1);
  assertEquals(
    wordProblems("a.ts", 'import { isVersioned } from "../memory/history.ts";').length,
    1,
  );
  assertEquals(wordProblems("a.ts", "const channel = eventChannel();").length, 1);
  assertEquals(wordProblems("a.ts", "// exits when hob closes the channel").length, 1);
  assertEquals(wordProblems("a.ts", 'import { encodeFrame } from "./channel.ts";').length, 1);
  assertEquals(
    wordProblems("a.ts", 'const { webRoutes } = await import("../web/routes.ts");').length,
    1,
  );
  assertEquals(wordProblems("a.ts", " * The page's routes (src/web's panels)").length, 1);
  const status = 'routes.get("/status", (c) => c.json(hob.app.status.collect()));';
  assertEquals(wordProblems("src/http/background.ts", status).length, 1);
  assertEquals(wordProblems("src/http/status.ts", status), []);
  assertEquals(wordProblems("a.ts", "const skills = await runtime.app.skills.list();"), []);
  assertEquals(
    wordProblems("a.ts", 'import { fetchPage } from "../tools/web/fetch.ts"; // the web'),
    [],
  );
  assertEquals(wordProblems("a.ts", 'await hub.tellOwner("telegram", text); // the channel'), []);
  assertEquals(wordProblems("a.ts", "const history = fitHistory(messages, budget);"), []);
  assertEquals(
    wordProblems("a.ts", 'routes.get("/memory/history", (c) => memory.versions({}));'),
    [],
  );
  assertEquals(
    wordProblems("a.ts", 'routes.get("/skills", (c) => c.json(app.skills.list()));'),
    [],
  );
  assertEquals(wordProblems("a.ts", "const host = config.server.host;"), []);
  assertEquals(wordProblems("a.ts", "await flushIntoMemory(deps, conversation);"), []);
  assertEquals(wordProblems("a.ts", "const worker = runtime.background.worker('serve');"), []);
  assertEquals(wordProblems("a.ts", 'headers.get("host")'), []);
});

Deno.test("src/ uses each of its words in one meaning", async () => {
  const problems: string[] = [];
  for await (const file of sourceFiles(join(ROOT, "src"))) {
    problems.push(...wordProblems(relative(ROOT, file), await Deno.readTextFile(file)));
  }
  assertEquals(problems, []);
});
