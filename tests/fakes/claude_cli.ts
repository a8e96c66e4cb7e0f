/**
 * A fake `claude` program for tests: a shell script that records its argv,
 * stdin and whether CLAUDECODE reached it, then prints what the real CLI prints
 * for `--output-format json` — or fails, as scripted.
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
  | { result: string }
  | { fail: string; code: number }
  | { is_error: string };

/** Writes the fake CLI into a temporary directory. */
export async function makeFakeClaudeCli(behaviour: FakeClaudeBehaviour): Promise<FakeClaudeCli> {
  const dir = await Deno.makeTempDir({ prefix: "hob-claude-" });
  const answer = "result" in behaviour
    ? `printf '%s' ${
      shellQuote(JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        result: behaviour.result,
        usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 2 },
      }))
    }`
    : "fail" in behaviour
    ? `echo ${shellQuote(behaviour.fail)} >&2; exit ${behaviour.code}`
    : `printf '%s' ${
      shellQuote(JSON.stringify({ type: "result", is_error: true, result: behaviour.is_error }))
    }`;
  const script = `#!/usr/bin/env bash
cat > "${dir}/stdin"
printf '%s\\0' "$@" > "${dir}/args"
printf '%s' "\${CLAUDECODE-unset}" > "${dir}/claudecode"
${answer}
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

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
