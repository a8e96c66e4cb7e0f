/**
 * Release build size: the bundle the compile-readiness check runs (code and
 * the model's data files), and the binary `deno compile` makes for this
 * machine. Where `deno compile` cannot get its runtime (denort) — no network
 * and no `DENORT_BIN` — the binary is not measurable; what it would embed
 * still is, by compiling onto this deno executable as the runtime and
 * subtracting that executable's size (such a file does not run as hob).
 */

import { type Bundle, bundleHob } from "../scripts/compile_check.ts";
import { compile } from "../scripts/compile.ts";

/** What {@linkcode measureReleaseSize} found. */
export interface ReleaseSizeResult {
  bundle: Bundle;
  /** The host binary's bytes, or why there is none. */
  binary: { bytes: number } | { unmeasured: string };
  /** Bytes `deno compile` adds to its runtime (the program, its npm packages and data). */
  payload?: number;
}

/** Bundles hob and compiles it for this machine, in a temporary directory. */
export async function measureReleaseSize(): Promise<ReleaseSizeResult> {
  const dir = await Deno.makeTempDir({ prefix: "hob-release-size-" });
  try {
    await Deno.mkdir(`${dir}/bundle`);
    const bundle = await bundleHob(`${dir}/bundle`);
    const output = `${dir}/hob`;
    try {
      await compile(undefined, { output });
      const { size } = await Deno.stat(output);
      return { bundle, binary: { bytes: size } };
    } catch (error) {
      // Deno lists the causes last, the innermost ("dns error: …") at the end.
      const lines = (error as Error).message.split("\n");
      const cause = lines.filter((line) => /^\s*\d+: /.test(line)).at(-1) ?? lines[0];
      const reason = `no denort: ${cause.replace(/^\s*\d+: /, "").slice(0, 120)}`;
      await compile(undefined, { output, denortBin: Deno.execPath() });
      const payload = (await Deno.stat(output)).size - (await Deno.stat(Deno.execPath())).size;
      return { bundle, binary: { unmeasured: reason }, payload };
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Prints the result lines. */
export function formatReleaseSize(r: ReleaseSizeResult): string {
  const code = r.bundle.code.reduce((sum, file) => sum + file.bytes, 0);
  const lines = [
    `release bundle (compile:check): ${mb(r.bundle.bytes)} · code ${mb(code)} (${
      r.bundle.code.map((file) => `${file.path.replace(/^.*\//, "")} ${mb(file.bytes)}`).join(", ")
    }) · model data ${mb(r.bundle.bytes - code)}`,
  ];
  if ("bytes" in r.binary) {
    lines.push(`release binary (${Deno.build.target}): ${mb(r.binary.bytes)}`);
  } else {
    lines.push(
      `release binary (${Deno.build.target}): not measurable here (${r.binary.unmeasured}); ` +
        `it is denort + ${mb(r.payload ?? 0)} of embedded program, npm packages and data`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(formatReleaseSize(await measureReleaseSize()));
