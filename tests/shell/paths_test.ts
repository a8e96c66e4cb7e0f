/** Paths in command lines are followed through the links that exist, and globs through what they could match. */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { judgeCommand, type ShellPolicySettings } from "../../src/shell/policy.ts";
import { DEFAULT_SHELL_ALLOWLIST } from "../../src/config/schema.ts";

async function withScratch(fn: (ws: string, settings: ShellPolicySettings) => Promise<void>) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-shell-paths-" }));
  const ws = `${base}/ws`;
  await Deno.mkdir(`${ws}/sub`, { recursive: true });
  await Deno.mkdir(`${base}/other/deep`, { recursive: true });
  await Deno.writeTextFile(`${base}/other/secret`, "s");
  await Deno.writeTextFile(`${ws}/a.txt`, "a");
  await Deno.symlink(`${base}/other/deep`, `${ws}/out`);
  await Deno.symlink(`${base}/other/secret`, `${ws}/secret-link`);
  await Deno.symlink("sub", `${ws}/in`);
  try {
    await fn(ws, {
      policy: "ask",
      allowlist: DEFAULT_SHELL_ALLOWLIST,
      roots: [ws],
      home: `${base}/home`,
      path: "/usr/bin:/bin",
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("a link inside the workspace that leads out is out, and `link/..` is the target's parent", async () => {
  await withScratch(async (_ws, settings) => {
    const decide = async (command: string) => (await judgeCommand(command, settings)).decision;
    assertEquals(await decide("cat a.txt in/x"), "allow");
    assertEquals(await decide("cat secret-link"), "ask");
    assertEquals(await decide("ls out"), "ask");
    // The kernel resolves out/.. through the link: it is ../other, not the workspace.
    assertEquals(await decide("cat out/../secret"), "ask");
    assertEquals(await decide("cat in/../a.txt"), "allow");
    assertEquals(await decide("echo x > out/new.txt"), "ask");
  });
});

Deno.test("a glob is judged by every entry it could match", async () => {
  await withScratch(async (ws, settings) => {
    const decide = async (command: string) => (await judgeCommand(command, settings)).decision;
    assertEquals(await decide("cat sub/*"), "allow");
    // `*` could match the link that leads out.
    assertEquals(await decide("cat *"), "ask");
    assertEquals(await decide("cat /etc/pass*"), "ask");
    assertEquals(await decide("cat */../*"), "ask");
    // A file named like an option would become one.
    await Deno.remove(`${ws}/out`);
    await Deno.remove(`${ws}/secret-link`);
    assertEquals(await decide("ls *"), "allow");
    await Deno.writeTextFile(`${ws}/--compress-program=sh`, "");
    const verdict = await judgeCommand("sort *", settings);
    assertEquals(verdict.decision, "ask");
    assertMatch(verdict.reason, /read as an option/);
    assertEquals(await decide("sort ./*"), "allow");
    assertEquals(await decide("sort -- *"), "allow");
    // A line that writes files and expands a glob is judged before its writes: it asks.
    assertEquals(await decide("echo > ./-delete; ls sub/*"), "ask");
  });
});
