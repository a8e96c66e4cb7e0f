/**
 * A second process that keeps swapping a directory for a symlink, for the
 * check-then-open race tests. It renames in a tight loop — dir → parked,
 * link → its place, back, and the dir back — so the path is a real directory,
 * missing, a link and missing again, in turn, thousands of times a second.
 */

import { assert } from "../helpers/assert.ts";

/**
 * The swapper's source, run with `deno run` and leave to rename its three paths. It yields to its event loop
 * every 200 cycles so it notices stdin closing, and stops by itself then, or
 * after five minutes if no one closes it. Its last line is the cycle count.
 */
const SWAPPER = `
const [path, parkedDir, parkedLink] = Deno.args;
let stop = false;
(async () => {
  try { for await (const _ of Deno.stdin.readable) { /* nothing is sent */ } } catch { /* closed */ }
  stop = true;
})();
const deadline = Date.now() + 300_000;
let cycles = 0;
console.log("swapping");
while (!stop && Date.now() < deadline) {
  for (let i = 0; i < 200; i++) {
    Deno.renameSync(path, parkedDir);
    Deno.renameSync(parkedLink, path);
    Deno.renameSync(path, parkedLink);
    Deno.renameSync(parkedDir, path);
    cycles++;
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
}
console.log(cycles);
`;

/** A running swapper. */
export interface Swapper {
  /** Stops it (the directory is back in place) and returns how many cycles it made. */
  stop(): Promise<number>;
}

/**
 * Starts swapping `path` (a real directory) with `parkedLink` (a symlink
 * beside it, usually leading outside), using `parkedDir` as the parking
 * place; resolves once the swapping has begun.
 */
export async function startSwapper(
  path: string,
  parkedDir: string,
  parkedLink: string,
): Promise<Swapper> {
  // It may rename these three paths and nothing else; the code goes as a data: URL (stdin is its stop).
  const paths = [path, parkedDir, parkedLink].join(",");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--allow-read=${paths}`,
      `--allow-write=${paths}`,
      `data:application/typescript,${encodeURIComponent(SWAPPER)}`,
      path,
      parkedDir,
      parkedLink,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("swapping\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the swapper stopped before it began: ${await errors(child)}`);
    out += value;
  }
  return {
    async stop() {
      await child.stdin.close();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
      const status = await child.status;
      assert(status.success, `the swapper failed: ${await errors(child)}`);
      return Number(out.slice(out.indexOf("swapping\n") + "swapping\n".length).trim());
    },
  };
}

async function errors(child: Deno.ChildProcess): Promise<string> {
  return await new Response(child.stderr).text().catch(() => "");
}
