/**
 * Running hob as a user does: `deno run` with exactly the permission flags of
 * deno.json's `hob` task, as a subprocess. Every permission check it makes is
 * audited (permission_audit.ts): a process that asked for what the flags do
 * not grant fails the test once it has ended, even where a library caught the
 * refusal. `tests/code/hob_flags_test.ts` keeps every test that starts hob on
 * these helpers' flags.
 */

import manifest from "../../deno.json" with { type: "json" };
import { permissionAudit } from "./permission_audit.ts";

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

/**
 * Runs `hob <args>` to completion; `timeoutMs` kills it (SIGKILL) if it runs
 * longer. Throws when it asked for a permission its flags do not grant.
 */
export async function runHob(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<HobResult> {
  const audit = await permissionAudit();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, MAIN, ...args],
    env: { ...cleanEnv(options.env), DENO_AUDIT_PERMISSIONS: audit.path },
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
  await audit.check(HOB_FLAGS, `hob ${args.join(" ")}`);
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** What a user at a terminal saw of a hob command, and how it ended. */
export interface TerminalResult {
  code: number;
  /** Everything the terminal showed, typed answers included. */
  transcript: string;
  stderr: string;
}

/**
 * Runs `hob <args>` in a pseudo-terminal (tests/fakes/pty_drive.py), typing
 * each answer once its text shows: where a permission hob lacked would be a
 * prompt. Throws when hob asked for a permission its flags do not grant.
 * `env` adds to its environment (`NO_COLOR: ""` lets it use colour).
 *
 * @example
 * ```ts
 * const run = await runHobInTerminal(["onboard", "--home", home], [["Number [1]: ", "2\r"]]);
 * ```
 */
export async function runHobInTerminal(
  args: string[],
  steps: [string, string][] = [],
  options: { env?: Record<string, string> } = {},
): Promise<TerminalResult> {
  const audit = await permissionAudit();
  const output = await new Deno.Command("python3", {
    args: [`${ROOT}tests/fakes/pty_drive.py`, JSON.stringify(steps), ...hobArgv(args)],
    env: { ...cleanEnv(options.env), DENO_AUDIT_PERMISSIONS: audit.path },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  await audit.check(HOB_FLAGS, `hob ${args.join(" ")} at a terminal`);
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, transcript: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Options for {@linkcode spawnHobCode} and {@linkcode runHobCode}. */
export interface HobCodeOptions {
  /** The code's `Deno.args`. */
  args?: string[];
  /** Added to the environment hob runs with ({@linkcode cleanEnv}). */
  env?: Record<string, string>;
  /** @default {"piped"} */
  stdout?: "piped" | "null" | "inherit";
  /** @default {"piped"} */
  stderr?: "piped" | "null" | "inherit";
}

/**
 * Starts `code` — TypeScript that imports hob's modules: a stand-in for hob
 * that a test times, kills midway or runs beside hob — as a process of its own
 * with exactly hob's flags (`deno run <HOB_FLAGS> -`, the code on stdin). Not
 * `deno eval`, which grants every permission.
 *
 * @example
 * ```ts
 * const child = await spawnHobCode(`console.log("ready"); await new Promise(() => {});`);
 * child.kill("SIGKILL");
 * ```
 */
export async function spawnHobCode(
  code: string,
  options: HobCodeOptions & { audit?: string } = {},
): Promise<Deno.ChildProcess> {
  const env = cleanEnv(options.env);
  if (options.audit) env.DENO_AUDIT_PERMISSIONS = options.audit;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, "--config", `${ROOT}deno.json`, "-", ...(options.args ?? [])],
    env,
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: options.stdout ?? "piped",
    stderr: options.stderr ?? "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(code));
  await writer.close();
  return child;
}

/**
 * Runs `code` as {@linkcode spawnHobCode} starts it, to its end; throws when
 * it asked for a permission hob's flags do not grant.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runHobCode(`console.log(Deno.args[0]);`, { args: ["hi"] });
 * ```
 */
export async function runHobCode(
  code: string,
  options: Pick<HobCodeOptions, "args" | "env"> = {},
): Promise<HobResult> {
  const audit = await permissionAudit();
  const child = await spawnHobCode(code, { ...options, audit: audit.path });
  const output = await child.output();
  await audit.check(HOB_FLAGS, "code run as hob");
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
  /**
   * Sends a signal and waits for the process to end; returns its exit code.
   * Throws when it asked for a permission its flags do not grant.
   */
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
  const audit = await permissionAudit();
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", ...HOB_FLAGS, MAIN, "serve", "--home", home, "--port", "0", ...extraArgs],
    env: { ...cleanEnv(options.env), DENO_AUDIT_PERMISSIONS: audit.path },
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
      // A permission it was refused is the likelier reason, when there is one.
      await audit.check(HOB_FLAGS, "hob serve");
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
      exited = Promise.all([process.status, stdoutDone, stderrDone]).then(async ([s]) => {
        await audit.check(HOB_FLAGS, "hob serve");
        return s.code;
      });
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
