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

/** What a finished program left: its exit code and both streams. */
export interface ProgramResult {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/**
 * Runs a program to its end with no shell, a timeout and optional input,
 * and returns its streams; throws when it cannot start, times out, or
 * exits non-zero (with the tail of its stderr).
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
    signal,
  }).spawn();
  if (options.stdin) {
    const writer = child.stdin.getWriter();
    // A program that exits without reading all its input closes the pipe: its exit code says why.
    await writer.write(options.stdin).catch(() => {});
    await writer.close().catch(() => {});
  }
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (timeout.aborted) {
    throw new Error(`${program} took longer than ${Math.round(options.timeoutMs / 1000)} s`);
  }
  if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
  if (output.code !== 0) {
    const tail = stderr.trim().split("\n").slice(-3).join(" ").slice(0, 500);
    throw new Error(`${program} failed (exit ${output.code})${tail ? `: ${tail}` : ""}`);
  }
  return { code: output.code, stdout: output.stdout, stderr };
}
