/**
 * A fake `claude` program for tests: a shell script that records its argv,
 * stdin and whether CLAUDECODE reached it, then prints what the real CLI prints
 * for `--output-format stream-json --verbose --include-partial-messages` (an
 * init line, partial-message lines, the result line) — or fails, goes quiet,
 * or takes its time, as scripted.
 */

/** A fake CLI on disk. `await using` removes it. */
export interface FakeClaudeCli extends AsyncDisposable {
  /** The path of the script, to use as `command`. */
  command: string;
  /** What the last run received. */
  lastRun(): Promise<{ args: string[]; stdin: string; claudecode: string }>;
}

/** How the fake answers. */
export type FakeClaudeBehaviour =
  | {
    result: string;
    /** Partial-message lines printed before the result, `every_s` seconds apart. */
    partials?: number;
    every_s?: number;
  }
  | { fail: string; code: number }
  | { is_error: string }
  /** Prints its init line and a partial message, then nothing, without exiting. */
  | { stall: true };

/** Writes the fake CLI into a temporary directory. */
export async function makeFakeClaudeCli(behaviour: FakeClaudeBehaviour): Promise<FakeClaudeCli> {
  const dir = await Deno.makeTempDir({ prefix: "hob-claude-" });
  const script = `#!/usr/bin/env bash
cat > "${dir}/stdin"
printf '%s\\0' "$@" > "${dir}/args"
printf '%s' "\${CLAUDECODE-unset}" > "${dir}/claudecode"
${answer(behaviour)}
`;
  const command = `${dir}/claude`;
  await Deno.writeTextFile(command, script, { mode: 0o755 });
  return {
    command,
    async lastRun() {
      const args = (await Deno.readTextFile(`${dir}/args`)).split("\0").slice(0, -1);
      return {
        args,
        stdin: await Deno.readTextFile(`${dir}/stdin`),
        claudecode: await Deno.readTextFile(`${dir}/claudecode`),
      };
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The script's lines after it recorded its input. */
function answer(behaviour: FakeClaudeBehaviour): string {
  const init = line({ type: "system", subtype: "init", model: "claude-fake" });
  const partial = line({
    type: "stream_event",
    event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "…" } },
  });
  if ("fail" in behaviour) {
    return `echo ${shellQuote(behaviour.fail)} >&2; exit ${behaviour.code}`;
  }
  if ("is_error" in behaviour) {
    return [init, line({ type: "result", is_error: true, result: behaviour.is_error })].join("\n");
  }
  if ("stall" in behaviour) {
    // exec: the signal that stops the CLI reaches the sleep itself, which holds stdout open.
    return [init, partial, "exec sleep 600"].join("\n");
  }
  const partials = Array.from(
    { length: behaviour.partials ?? 0 },
    () => `sleep ${behaviour.every_s ?? 0}\n${partial}`,
  );
  return [
    init,
    ...partials,
    line({
      type: "result",
      subtype: "success",
      is_error: false,
      result: behaviour.result,
      usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 2 },
    }),
  ].join("\n");
}

/** A printf of one JSON line. */
function line(value: unknown): string {
  return `printf '%s\\n' ${shellQuote(JSON.stringify(value))}`;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
