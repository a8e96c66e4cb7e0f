/**
 * The `run_code` tool: TypeScript or JavaScript in a tool process of its own
 * (src/sandbox/process.ts) with no permissions at all — no files, no
 * network, no environment, no subprocesses — and a heap cap. `while (true) {}`
 * is stopped by the timeout; `Deno.exit()` or a heap bomb ends only that
 * process. Its code is never run in hob's own process: the sandbox routes it
 * by name (sandbox/routing.ts).
 */

import { z } from "zod";
import { BoundedText } from "../tools/bounded_text.ts";
import { defineTool } from "../sandbox/definition.ts";
import { Buffer } from "node:buffer";

/** Default and longest run time, in seconds. */
const DEFAULT_TIMEOUT_S = 10;
const MAX_TIMEOUT_S = 60;

export default defineTool({
  name: "run_code",
  description:
    "Run TypeScript or JavaScript in an isolated sandbox with no file, network or environment access. console.log output and the value of `export default` come back. Good for calculations and data wrangling.",
  category: "code",
  side_effect: "none",
  untrusted_output: false,
  timeout_ms: (args: { timeout?: number }) => (args.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
  parameters: z.object({
    code: z.string().min(1).max(200_000).describe("An ES module; top-level await works"),
    language: z.enum(["typescript", "javascript"]).default("typescript"),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_S).optional(),
  }),
  async run({ code, language }) {
    const output = new BoundedText(9_000);
    const print = (...values: unknown[]) => {
      output.append(
        `${values.map((v) => (typeof v === "string" ? v : Deno.inspect(v))).join(" ")}\n`,
      );
    };
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      console[method] = print;
    }
    const type = language === "typescript" ? "application/typescript" : "application/javascript";
    let result: unknown;
    try {
      const module = await import(`data:${type};base64,${Buffer.from(code).toString("base64")}`);
      result = module.default;
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return `${output.total > 0 ? `${output}\n` : ""}error: ${message}`;
    }
    const parts: string[] = [];
    if (output.total > 0) parts.push(output.toString().trimEnd());
    if (result !== undefined) parts.push(`default export: ${Deno.inspect(result, { depth: 6 })}`);
    return parts.length > 0 ? parts.join("\n") : "(no output)";
  },
});
