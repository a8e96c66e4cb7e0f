/**
 * A skill's script, run as Deno would run it from a command line, inside a
 * tool process's Worker that holds exactly the permissions granted at install
 * (the hob process computes them; this file only runs what it is given). Its
 * code arrives as a data: URL of the bytes whose hash hob just checked, so
 * nothing is read from disk again; `Deno.args`, `Deno.stdin`, `Deno.stdout`,
 * `Deno.stderr`, `console`, `Deno.exit` and the working directory are set up
 * as a command line would have them, and what it wrote comes back capped.
 *
 * Both sides load this file: the hob process makes the module URL
 * ({@linkcode scriptModuleUrl}), never evaluating it; the tool process runs
 * it ({@linkcode runScript}). It knows no skill, no install and no policy.
 */

import { dirname } from "node:path";

/** What a script is run with, besides its code. */
export interface ScriptCall {
  /** What the script reads as `Deno.args`. */
  args: string[];
  /** What it reads from `Deno.stdin`; empty when left out. */
  stdin?: string;
  /** Its working directory (the workspace). */
  cwd: string;
  /** The script's path, for `process.argv` and messages. */
  file: string;
  /** Characters kept of each of stdout and stderr (head and tail). */
  cap: number;
}

/** How a script's run went: what a command line would show. */
export interface ScriptOutcome {
  exit_code: number;
  stdout: string;
  stderr: string;
}

/**
 * The module a script runs as: its code, with `import.meta.url`, `.filename`,
 * `.dirname` and `.main` standing for the file in the skill's folder (a
 * script finds its own `references/` through them), as a data: URL.
 *
 * @example
 * ```ts
 * scriptModuleUrl("console.log(import.meta.dirname)", "/h/skills/x/scripts/a.ts", "typescript");
 * // "data:application/typescript;base64,…" (logs "/h/skills/x/scripts")
 * ```
 */
export function scriptModuleUrl(
  code: string,
  file: string,
  language: "typescript" | "javascript",
): string {
  const meta: Record<string, string> = {
    main: "true",
    url: JSON.stringify(fileUrl(file)),
    filename: JSON.stringify(file),
    dirname: JSON.stringify(dirname(file)),
  };
  const source = code.replace(
    /\bimport\.meta\.(main|url|filename|dirname)\b/g,
    (_, key: string) => `(${meta[key]})`,
  );
  const type = language === "typescript" ? "application/typescript" : "application/javascript";
  const bytes = new TextEncoder().encode(source);
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return `data:${type};base64,${btoa(binary)}`;
}

/**
 * Runs the script at `url` once, in the Worker this code runs in; `report`
 * gets the outcome once, as soon as it is known — even from inside
 * `Deno.exit`, before the Worker ends. The run ends when the module has
 * evaluated (top-level await included), when it calls `Deno.exit`, or at its
 * first uncaught error (exit code 1).
 *
 * @example
 * ```ts
 * await runScript(url, { args: ["a"], cwd: workspace, file, cap: 5_000 }, post);
 * ```
 */
export async function runScript(
  url: string,
  call: ScriptCall,
  report: (outcome: ScriptOutcome) => void,
): Promise<void> {
  const stdout = new StreamTail(call.cap);
  const stderr = new StreamTail(call.cap);
  let reported = false;
  const end = (exitCode: number) => {
    if (reported) return;
    reported = true;
    report({ exit_code: exitCode, stdout: stdout.text(), stderr: stderr.text() });
  };
  const uncaught = (error: unknown) => {
    stderr.write(`error: Uncaught ${describe(error)}\n`);
    end(1);
  };
  setUpCommandLine(call, stdout, stderr, end);
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    uncaught(event.error ?? event.message);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    uncaught(event.reason);
  });
  try {
    Deno.chdir(call.cwd);
    await import(url);
  } catch (error) {
    return uncaught(error);
  }
  end(typeof Deno.exitCode === "number" ? Deno.exitCode : 0);
}

/** `Deno.args`, `process.argv`, the three streams, `console` and `Deno.exit` of a command line. */
function setUpCommandLine(
  call: ScriptCall,
  stdout: StreamTail,
  stderr: StreamTail,
  end: (exitCode: number) => void,
): void {
  const define = (name: string, value: unknown) =>
    Object.defineProperty(Deno, name, { value, configurable: true, writable: true });
  define("args", Object.freeze([...call.args]));
  const node = (globalThis as { process?: { argv: string[] } }).process;
  if (node) node.argv = ["deno", call.file, ...call.args];
  define("stdin", stdinOf(call.stdin ?? ""));
  define("stdout", writerOf(stdout));
  define("stderr", writerOf(stderr));
  const print = (stream: StreamTail) => (...values: unknown[]) =>
    stream.write(`${format(values)}\n`);
  for (const method of ["log", "info", "debug", "dir", "table"] as const) {
    console[method] = print(stdout);
  }
  for (const method of ["warn", "error", "trace"] as const) console[method] = print(stderr);
  const exit = Deno.exit;
  define("exit", (code?: number) => {
    end(code ?? (typeof Deno.exitCode === "number" ? Deno.exitCode : 0));
    exit(code);
  });
}

/** A `Deno.stdin` that reads `text` and then ends. */
function stdinOf(text: string) {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const readSync = (into: Uint8Array): number | null => {
    if (offset >= bytes.length) return null;
    const count = Math.min(into.length, bytes.length - offset);
    into.set(bytes.subarray(offset, offset + count));
    offset += count;
    return count;
  };
  return {
    rid: -1,
    readable: new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset < bytes.length) controller.enqueue(bytes.slice(offset));
        offset = bytes.length;
        controller.close();
      },
    }),
    read: (into: Uint8Array) => Promise.resolve(readSync(into)),
    readSync,
    isTerminal: () => false,
    setRaw() {
      throw new Deno.errors.NotSupported("stdin is not a terminal");
    },
    close() {},
  };
}

/** A `Deno.stdout` or `Deno.stderr` that keeps what is written to it in `tail`. */
function writerOf(tail: StreamTail) {
  const decoder = new TextDecoder();
  const writeSync = (bytes: Uint8Array): number => {
    tail.write(decoder.decode(bytes, { stream: true }));
    return bytes.length;
  };
  return {
    rid: -1,
    writable: new WritableStream<Uint8Array>({ write: (chunk) => void writeSync(chunk) }),
    write: (bytes: Uint8Array) => Promise.resolve(writeSync(bytes)),
    writeSync,
    isTerminal: () => false,
    close() {},
  };
}

/**
 * Text written to a stream, within a cap: the first and the last characters,
 * and how many were left out between them.
 */
class StreamTail {
  readonly #cap: number;
  #head = "";
  #tail = "";
  #total = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  write(text: string): void {
    this.#total += text.length;
    const half = Math.ceil(this.#cap / 2);
    if (this.#head.length < half) {
      const room = half - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    this.#tail = (this.#tail + text).slice(-(this.#cap - half));
  }

  text(): string {
    const kept = this.#head.length + this.#tail.length;
    if (kept >= this.#total) return this.#head + this.#tail;
    return `${this.#head}\n[… ${this.#total - kept} characters left out …]\n${this.#tail}`;
  }
}

/** What console.log would print for `values` (its %s, %d, %i, %f, %o, %O, %j and %c). */
function format(values: unknown[]): string {
  const [first, ...rest] = values;
  const shown = (value: unknown) => typeof value === "string" ? value : Deno.inspect(value);
  if (typeof first !== "string" || !first.includes("%")) return values.map(shown).join(" ");
  const text = first.replace(/%([sdifoOjc%])/g, (whole, kind: string) => {
    if (kind === "%") return "%";
    if (rest.length === 0) return whole;
    const value = rest.shift();
    if (kind === "s") return shown(value);
    if (kind === "d" || kind === "i") {
      return String(kind === "i" ? Math.trunc(Number(value)) : Number(value));
    }
    if (kind === "f") return String(Number(value));
    if (kind === "c") return "";
    if (kind === "j") return JSON.stringify(value);
    return Deno.inspect(value);
  });
  return [text, ...rest.map(shown)].join(" ");
}

/** `file`'s file: URL, its characters escaped as a URL's path needs. */
function fileUrl(file: string): string {
  const url = new URL("file:///");
  url.pathname = file.replaceAll("\\", "/");
  return url.href;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
