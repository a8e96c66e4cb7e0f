/**
 * `deno task compile`: the release build. `deno compile` turns main.ts into one
 * binary per target with the permission flags of deno.json's `hob` task baked
 * in. The page, identity templates and example tools are text imports, so they
 * are in the module graph already; what Deno cannot see is the Worker entry
 * modules (started by URL), so they are named here with `--include`. npm
 * packages go in whole (the embedding model's weights and wasm with them), but
 * only those the program reaches: the lockfile also holds test-only packages.
 *
 * `deno compile` downloads the runtime it wraps (`denort`) for each target; an
 * offline builder points `DENORT_BIN` at a local one (for one target at a time).
 *
 * ```sh
 * deno task compile                                   # dist/hob for this machine
 * deno task compile --target aarch64-apple-darwin     # dist/hob-aarch64-apple-darwin
 * deno task compile --all                             # all five targets
 * ```
 */

import { parseArgs } from "node:util";
import { HOB_FLAGS } from "../tests/helpers/hob_process.ts";

/** The release targets. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** A release target. */
export type Target = typeof TARGETS[number];

/**
 * Modules hob starts by URL (Workers, and the tool process's entry): no import
 * names them, so `deno compile` must be told to embed them and the bundle
 * check bundles each on its own. tests/scripts/compile_test.ts fails when src/
 * starts one that is not here. (A compiled hob starts its tool processes as
 * `hob __sandbox`, whose Worker is process_worker.ts.)
 */
export const WORKER_ENTRIES = [
  "src/builtins/worker_entry.ts",
  "src/builtins/process_entry.ts",
  "src/builtins/process_worker.ts",
  "src/memory/use_lite_worker.ts",
  "src/memory/documents_entry.ts",
  "src/memory/documents_worker.ts",
  "src/shell/judge_worker.ts",
  "src/store/snapshot_worker.ts",
] as const;

/** The repository's root, where deno.json and main.ts are. */
export const ROOT: string = new URL("..", import.meta.url).pathname;

/** The binary's path for `target` (the host's when none is named). */
export function binaryPath(target?: Target): string {
  const windows = target ? target.includes("windows") : Deno.build.os === "windows";
  return `${ROOT}dist/hob${target ? `-${target}` : ""}${windows ? ".exe" : ""}`;
}

/**
 * The arguments of `deno compile` for one binary: the `hob` task's flags, the
 * Worker entries, and only the npm packages the program reaches.
 *
 * @example
 * ```ts
 * await new Deno.Command(Deno.execPath(), { args: compileArgs("x86_64-apple-darwin") }).output();
 * ```
 */
export function compileArgs(target?: Target, output: string = binaryPath(target)): string[] {
  return [
    "compile",
    ...HOB_FLAGS,
    "--exclude-unused-npm",
    ...WORKER_ENTRIES.flatMap((entry) => ["--include", entry]),
    ...(target ? ["--target", target] : []),
    "--output",
    output,
    "main.ts",
  ];
}

/** Options for {@linkcode compile}. */
export interface CompileOptions {
  /** Where the binary goes. @default {binaryPath(target)} */
  output?: string;
  /** A local denort to wrap instead of downloading one. @default {the `DENORT_BIN` variable} */
  denortBin?: string;
}

/** Runs `deno compile` for `target`; returns the binary's path, or throws with Deno's message. */
export async function compile(target?: Target, options: CompileOptions = {}): Promise<string> {
  const args = compileArgs(target, options.output);
  const path = args[args.indexOf("--output") + 1];
  const result = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...(options.denortBin ? { DENORT_BIN: options.denortBin } : {}) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    // Deno prints the embedded files' tree first; its error and causes come last.
    const text = new TextDecoder().decode(result.stderr);
    const start = text.search(/^error:/m);
    const end = text.indexOf("\nStack backtrace:", start);
    const error = start < 0 ? text.slice(-2_000) : text.slice(start, end < 0 ? undefined : end);
    throw new Error(
      `deno compile${target ? ` --target ${target}` : ""} failed: ${
        error.trim().replace(/\n+/g, "\n")
      }`,
    );
  }
  return path;
}

if (import.meta.main) {
  let values: { target?: string[]; all?: boolean };
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: { target: { type: "string", multiple: true }, all: { type: "boolean" } },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}; usage: deno task compile [--target T]... [--all]`);
    Deno.exit(2);
  }
  const unknown = (values.target ?? []).filter((t) => !(TARGETS as readonly string[]).includes(t));
  if (unknown.length > 0) {
    console.error(
      `Cannot compile as '--target' must be one of ${TARGETS.join(", ")}: current value is '${
        unknown[0]
      }'`,
    );
    Deno.exit(2);
  }
  const targets: (Target | undefined)[] = values.all
    ? [...TARGETS]
    : values.target?.length
    ? values.target as Target[]
    : [undefined];
  for (const target of targets) {
    try {
      const path = await compile(target);
      const { size } = await Deno.stat(path);
      console.log(`${path.slice(ROOT.length)}  ${(size / 1e6).toFixed(1)} MB`);
    } catch (error) {
      console.error((error as Error).message);
      if (!Deno.env.get("DENORT_BIN")) {
        console.error(
          "deno compile downloads its runtime (denort) per target; offline, set DENORT_BIN to a " +
            "local denort of the same Deno version and build one target at a time.",
        );
      }
      Deno.exit(1);
    }
  }
}
