/** SqliteApprovals.wait over a real hob.db: a wait never outlives the database it waits on. */

import { SqliteApprovals } from "../../src/store/approvals.ts";
import { assertEquals } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

Deno.test("a wait whose database closes ends as expired instead of throwing later", async () => {
  using temp = tempStore();
  const approvals = new SqliteApprovals(temp.db);
  const approval = approvals.request({
    conversation_id: null,
    tool_call_id: null,
    tool: "run_command",
    arguments: "{}",
    reason: "policy says ask",
    shape: "{}",
    timeoutMs: 60_000,
  });
  const waiting = approvals.wait(approval.id);
  // hob closing (a stopped server, a test's end) while a turn waits for the owner.
  temp.db.close();
  assertEquals(await waiting, "expired");
});
