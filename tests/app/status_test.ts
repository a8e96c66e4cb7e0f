/** The status action over a real runtime in a temporary home. */

import { ActionError } from "../../src/app/errors.ts";
import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { tempRuntime } from "../helpers/home.ts";

const YAML = "memory: { embedder: none }\ntasks: { workers: 0 }\nheartbeat: { enabled: false }\n";

async function refusal(call: () => Promise<unknown>): Promise<ActionError> {
  const error = await assertRejects(call);
  assert(error instanceof ActionError, `not an ActionError: ${error}`);
  return error;
}

Deno.test("createStatusActions reports the whole assistant, with what the server knows", async () => {
  await using env = await tempRuntime(YAML);
  const { app } = env.runtime;
  app.tasks.add({ title: "Sort photos" });
  app.schedules.add({ name: "stretch", prompt: "Stretch", schedule: "every 45m" });
  const status = await app.status.collect({ server_running: true });
  assertEquals(status.home, env.home.home);
  assertEquals(status.server.running, true);
  assertEquals(status.tasks.counts.pending, 1);
  assertEquals([status.jobs.total, status.jobs.enabled, status.jobs.next?.name], [1, 1, "stretch"]);
  assertEquals(status.notifications.unread, 0);
  assertEquals(status.memory.embedder, null);
  assertEquals(status.database.path, `${env.home.home}/hob.db`);
  assert(status.database.bytes > 0);
  const refused = await refusal(() => app.status.collect({ running: true } as never));
  assertEquals([refused.code, refused.field], ["invalid", "running"]);
});
