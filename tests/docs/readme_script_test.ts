/**
 * The README's script example runs as written from a clone: through the
 * `./hob` launcher's Deno (no `deno` on the PATH), against hob at whatever
 * address it printed (here a random port, not 8484), with the token read from
 * `~/.hob/token`.
 */

import { join } from "node:path";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The body of the first fenced block of `lang` whose text includes `marker`. */
function codeBlock(markdown: string, lang: string, marker: string): string {
  for (const match of markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (match[1] === lang && match[2].includes(marker)) return match[2];
  }
  throw new Error(`README.md has no ${lang} block with '${marker}'`);
}

/** The shell's PATH without any directory that holds a `deno`. */
async function pathWithoutDeno(): Promise<string> {
  const dirs: string[] = [];
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    try {
      await Deno.stat(join(dir, "deno"));
    } catch {
      dirs.push(dir);
    }
  }
  return dirs.join(":");
}

Deno.test("README.md's script example runs with ./hob's Deno, at the address hob printed", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const script = codeBlock(readme, "ts", "// today.ts");
  const command = codeBlock(readme, "sh", "today.ts");

  await using fake = startFakeOpenAI({ fallback: { text: "Milk, then the boiler." } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  const user = await Deno.makeTempDir({ prefix: "hob-readme-" });
  try {
    // The reader's home: ~/.hob is the hob home, today.ts is saved beside it.
    await Deno.symlink(home.home, join(user, ".hob"));
    await Deno.writeTextFile(join(user, "today.ts"), script);
    // The one value the reader fills in: the address their `hob serve` printed.
    const lines = command.replace(/^HOB=\S+/m, `HOB=${hob.url}`)
      .replace(/ today\.ts /, ` ${join(user, "today.ts")} `);
    const run = await new Deno.Command("bash", {
      args: ["-euo", "pipefail", "-c", lines],
      cwd: ROOT,
      env: {
        PATH: await pathWithoutDeno(),
        HOME: user,
        // The launcher's own choice of Deno, so a clone without .deno/ installs nothing here.
        HOB_DENO: Deno.execPath(),
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(run.stdout);
    const stderr = new TextDecoder().decode(run.stderr);
    assertEquals(run.code, 0, `${lines}\n${stdout}\n${stderr}`);
    assertStringIncludes(stdout, "Milk, then the boiler.");
  } finally {
    await Deno.remove(user, { recursive: true });
  }
});
