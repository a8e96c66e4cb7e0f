/** The command table `hob --help` reads without loading any command. */

import { assertEquals } from "../helpers/assert.ts";
import { COMMANDS } from "../../src/cli/commands.ts";

Deno.test("COMMANDS loads each command under its own name, with its own summary", async () => {
  for (const entry of COMMANDS) {
    const command = await entry.load();
    assertEquals([command.name, command.summary], [entry.name, entry.summary], entry.name);
  }
  assertEquals(new Set(COMMANDS.map((entry) => entry.name)).size, COMMANDS.length);
});
