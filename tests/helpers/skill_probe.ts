/**
 * The probe skill the run_skill_script tests install: scripts that echo,
 * read what they are told to, fetch, exit, loop — and one in Python.
 */

import { join } from "node:path";
import type { AppActions } from "../../src/app/app.ts";

/** The scripts of the test skill, by path. */
export const PROBE_FILES: Record<string, string> = {
  "SKILL.md": `---
name: probe
description: Probes what its scripts may reach.
---
Run scripts/echo.ts with the words to echo.
`,
  "references/x.md": "the reference text\n",
  "scripts/echo.ts":
    `const ref = await Deno.readTextFile(new URL("../references/x.md", import.meta.url));
const input = await new Response(Deno.stdin.readable).text();
await Deno.writeTextFile("echoed.txt", Deno.args.join(" "));
console.log(JSON.stringify({ args: Deno.args, ref: ref.trim(), input, cwd: Deno.cwd(), main: import.meta.main }));
console.error("to stderr");
`,
  // Reads each path it is given and says what it got: the content, or the error.
  "scripts/read.ts": `for (const path of Deno.args) {
  try {
    console.log("READ", path, await Deno.readTextFile(path));
  } catch (error) {
    console.log("DENIED", path, error.name, error.message);
  }
}
try {
  console.log("ENV", Deno.env.get("HOME"));
} catch (error) {
  console.log("DENIED env", error.name);
}
`,
  // It names both hosts; the owner grants only the first (http://127.0.0.1 and http://127.0.0.2).
  "scripts/fetch.ts": `// Talks to http://127.0.0.1 or http://127.0.0.2, as it is told.
const response = await fetch(Deno.args[0]);
console.log("status", response.status, await response.text());
`,
  "scripts/exit.ts": `console.log("before");
Deno.exit(4);
console.log("after");
`,
  "scripts/loop.ts": "while (true) { /* forever */ }\n",
  "scripts/fill.py": "import sys\nprint(sys.argv)\n",
};

/** Writes a skill folder named `name` under `parent` with `files`. */
export async function writeSkill(
  parent: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  const dir = join(parent, name);
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  return dir;
}

/** Installs the probe skill through the app and accepts it granting `hosts`. */
export async function installProbe(app: AppActions, hosts: string[]): Promise<void> {
  const source = await Deno.makeTempDir({ prefix: "hob-skill-src-" });
  try {
    const added = await app.skills.add(
      { source: await writeSkill(source, "probe", PROBE_FILES) },
      { by: "cli" },
    );
    await app.skills.accept({ name: "probe", hash: added.hash, hosts });
  } finally {
    await Deno.remove(source, { recursive: true });
  }
}
