/**
 * Running hob as a user does: `deno run` with exactly the permission flags of
 * deno.json's `hob` task (so tests catch a missing flag), as a subprocess.
 */

import manifest from "../../deno.json" with { type: "json" };

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;

/** The flags `deno task hob` runs main.ts with. */
export const HOB_FLAGS: string[] = (() => {
  const words = manifest.tasks.hob.split(/\s+/);
  const start = words.indexOf("run") + 1;
  const end = words.indexOf("main.ts");
  if (start < 1 || end < start) {
    throw new Error("deno.json's hob task is not 'deno run <flags> main.ts'");
  }
  return words.slice(start, end);
})();

/**
 * `hob` as tests run it from source: what a compiled hob's `Deno.execPath()`
 * stands for when it starts itself (`hob __sandbox`, `hob __documents`).
 */
export const HOB_COMMAND: string[] = [
  Deno.execPath(),
  "run",
  ...HOB_FLAGS,
  "--config",
  `${ROOT}deno.json`,
  MAIN,
];

/** The environment hob runs with: what Deno needs, nothing of the tester's hob settings. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR", "LANG", "TZ"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** The command line of `hob <args>` as the `hob` task runs it: the program first. */
export function hobArgv(args: string[]): string[] {
  return [Deno.execPath(), "run", ...HOB_FLAGS, MAIN, ...args];
}

/** What a finished hob command printed. */
export interface HobResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `hob <args>` to completion; `timeoutMs` kills it (SIGKILL) if it runs longer. */
export async function runHob(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<HobResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, MAIN, ...args],
    env: cleanEnv(options.env),
    clearEnv: true,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, options.timeoutMs);
  const output = await child.output().finally(() => clearTimeout(timer));
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** A running `hob serve`. `await using` stops it. */
export interface HobServer extends AsyncDisposable {
  url: string;
  token: string;
  process: Deno.ChildProcess;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Sends a signal and waits for the process to end; returns its exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
  /** Fetches `path` with the token. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts `hob serve --home HOME --port 0` and waits until it listens; `env` adds to its environment. */
export async function startHob(
  home: string,
  extraArgs: string[] = [],
  options: { env?: Record<string, string> } = {},
): Promise<HobServer> {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, MAIN, "serve", "--home", home, "--port", "0", ...extraArgs],
    env: cleanEnv(options.env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();

  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of process.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  let stdout = "";
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + 15_000;
  let match: RegExpMatchArray | null = null;
  while (!match) {
    const { value, done } = await reader.read();
    if (done || Date.now() > deadline) {
      try {
        process.kill("SIGKILL");
      } catch { /* it has exited already: its stderr says why */ }
      await process.status;
      throw new Error(`hob serve did not start:\n${stdout}\n${stderr}`);
    }
    stdout += value;
    match = stdout.match(/Open (http:\/\/[^/\s]+)\/\?token=(\S+)\n/);
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  const stdoutDone = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();

  let exited: Promise<number> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!exited) {
      try {
        process.kill(signal);
      } catch { /* already gone */ }
      exited = Promise.all([process.status, stdoutDone, stderrDone]).then(([s]) => s.code);
    }
    return exited;
  };
  const [, url, token] = match;
  return {
    url,
    token,
    process,
    stderr: () => stderr,
    stop,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
      return fetch(`${url}${path}`, { ...init, headers });
    },
    async [Symbol.asyncDispose]() {
      await stop("SIGKILL");
    },
  };
}
