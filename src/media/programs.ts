/**
 * The programs hob runs for audio and video (`ffmpeg`, `ffprobe`, a speech
 * command), found on PATH without running them, and the error that names
 * what to install when one is missing.
 */

import { delimiter, isAbsolute, join } from "node:path";

/** What to install for each program hob may need, on the systems people run it on. */
const INSTALL: Record<string, string> = {
  ffmpeg: "install ffmpeg (apt-get install ffmpeg, brew install ffmpeg, winget install ffmpeg)",
  ffprobe: "install ffmpeg, which includes ffprobe (apt-get install ffmpeg, brew install ffmpeg)",
  pocketsphinx_continuous: "apt-get install pocketsphinx pocketsphinx-en-us",
  "espeak-ng": "apt-get install espeak-ng (brew install espeak-ng)",
  text2wave: "apt-get install festival",
};

/** Raised when a program hob needs is not installed; the message says what to install. */
export class MissingProgramError extends Error {
  override name = "MissingProgramError";
  constructor(readonly program: string, purpose: string) {
    super(
      `${purpose} needs '${program}', which is not installed here: ${
        INSTALL[program] ?? `install ${program} or put it on PATH`
      }`,
    );
  }
}

/**
 * Where `program` is: itself when it is a path to a file, else the first
 * match on PATH; null when there is none.
 *
 * @example
 * ```ts
 * findProgram("ffmpeg"); // "/usr/bin/ffmpeg", or null
 * ```
 */
export function findProgram(program: string, path = Deno.env.get("PATH") ?? ""): string | null {
  const candidates = isAbsolute(program) || program.includes("/")
    ? [program]
    : path.split(delimiter).filter(Boolean).map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && (info.mode === null || (info.mode & 0o111) !== 0)) return candidate;
    } catch {
      // Not there; try the next.
    }
  }
  return null;
}

/** `program`'s path, or a {@linkcode MissingProgramError} saying what to install. */
export function requireProgram(program: string, purpose: string): string {
  const found = findProgram(program);
  if (!found) throw new MissingProgramError(program, purpose);
  return found;
}

/**
 * Raised when a program hob ran exited non-zero; the message quotes the tail
 * of its stderr, and `stderr` keeps all of it for a caller that can say more.
 */
export class ProgramError extends Error {
  override name = "ProgramError";
  constructor(readonly program: string, readonly code: number, readonly stderr: string) {
    const tail = stderr.trim().split("\n").slice(-3).join(" ").slice(0, 500);
    super(`${program} failed (exit ${code})${tail ? `: ${tail}` : ""}`);
  }
}

/** What a finished program left: its exit code and both streams. */
export interface ProgramResult {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/**
 * Runs a program to its end with no shell, a timeout and optional input,
 * and returns its streams; throws when it cannot start, times out, or exits
 * non-zero (a {@linkcode ProgramError}). The input is written while the
 * output is read — a converter fills its output pipe long before it has
 * read all its input — and a program past its time is killed outright
 * (SIGKILL: one blocked writing would not hear SIGTERM).
 */
export async function runProgram(
  argv: string[],
  options: { stdin?: Uint8Array; timeoutMs: number; signal?: AbortSignal; purpose: string },
): Promise<ProgramResult> {
  const [program, ...args] = argv;
  const path = requireProgram(program, options.purpose);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const child = new Deno.Command(path, {
    args,
    stdin: options.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  };
  if (signal.aborted) kill();
  signal.addEventListener("abort", kill, { once: true });
  const writing = options.stdin ? feed(child, options.stdin) : Promise.resolve();
  const [output] = await Promise.all([child.output(), writing])
    .finally(() => signal.removeEventListener("abort", kill));
  const stderr = new TextDecoder().decode(output.stderr);
  if (timeout.aborted) {
    throw new Error(`${program} took longer than ${Math.round(options.timeoutMs / 1000)} s`);
  }
  if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
  if (output.code !== 0) throw new ProgramError(program, output.code, stderr);
  return { code: output.code, stdout: output.stdout, stderr };
}

/** Writes `input` to the child's stdin and closes it; a program that stops reading early is no error here. */
async function feed(child: Deno.ChildProcess, input: Uint8Array): Promise<void> {
  const writer = child.stdin.getWriter();
  // A program that exits without reading all its input closes the pipe: its exit code says why.
  await writer.write(input).catch(() => {});
  await writer.close().catch(() => {});
}
