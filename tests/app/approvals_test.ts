/** The approval actions over a real store in a temporary hob.db: listing, deciding, and the refusals' codes. */

import { createApprovalActions } from "../../src/app/approvals.ts";
import { ActionError } from "../../src/app/errors.ts";
import { SqliteApprovals } from "../../src/store/approvals.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

/** The action's refusal: its code, field and message. */
function refusal(fn: () => unknown): Pick<ActionError, "code" | "field" | "message"> {
  const error = assertThrows(fn, ActionError) as ActionError;
  return { code: error.code, field: error.field, message: error.message };
}

/** A tool call waiting for the user. */
function waiting(store: SqliteApprovals, tool = "run_command") {
  return store.request({
    conversation_id: null,
    tool_call_id: null,
    tool,
    arguments: "{}",
    reason: "policy says ask",
    shape: "{}",
    timeoutMs: 60_000,
  });
}

Deno.test("createApprovalActions lists the pending ones, decides, and keeps the decided for the history", async (t) => {
  using temp = tempStore();
  const store = new SqliteApprovals(temp.db);
  const approvals = createApprovalActions(store);
  const first = waiting(store);
  const second = waiting(store, "email_file");

  await t.step("pending ones by default, every one with status all", () => {
    assertEquals(approvals.list().map((a) => a.id).sort(), [first.id, second.id].sort());
    assertEquals(approvals.list({ status: "all" }).length, 2);
    assertEquals(approvals.recent(), []);
  });

  await t.step("a decision is recorded; remember defaults to false", () => {
    const decided = approvals.decide({ id: first.id, decision: "approve" });
    assertEquals([decided.status, decided.remember], ["approved", false]);
    assertEquals(approvals.list().map((a) => a.id), [second.id]);
    assertEquals(approvals.recent().map((a) => a.id), [first.id]);
  });

  await t.step("with remember, the next call of that shape is answered unasked", () => {
    approvals.decide({ id: second.id, decision: "deny", remember: true });
    assertEquals(store.remembered("email_file", "{}"), "deny");
  });
});

Deno.test("createApprovalActions refuses what cannot be decided", async (t) => {
  using temp = tempStore();
  const store = new SqliteApprovals(temp.db);
  const approvals = createApprovalActions(store);
  const pending = waiting(store);

  await t.step("a decision that is neither approve nor deny", () => {
    const { code, field } = refusal(() =>
      approvals.decide({ id: pending.id, decision: "maybe" as "approve" })
    );
    assertEquals([code, field], ["invalid", "decision"]);
  });
  await t.step("a status no listing knows", () => {
    assertEquals(refusal(() => approvals.list({ status: "lost" as "all" })).field, "status");
  });
  await t.step("an approval that is not there", () => {
    assertEquals(refusal(() => approvals.decide({ id: "nope", decision: "approve" })), {
      code: "not_found",
      field: "id",
      message: "Approval 'nope' does not exist — the list of approvals shows the pending ones",
    });
  });
  await t.step("one decided already", () => {
    approvals.decide({ id: pending.id, decision: "deny" });
    assertEquals(refusal(() => approvals.decide({ id: pending.id, decision: "approve" })), {
      code: "conflict",
      field: undefined,
      message: `Approval '${pending.id}' is already denied`,
    });
  });
});

Deno.test("createApprovalActions takes a unique prefix of an id, git-style", async (t) => {
  using temp = tempStore();
  const store = new SqliteApprovals(temp.db);
  const approvals = createApprovalActions(store);
  // Ids are random; give three known ones, two of them sharing their first five characters.
  const named = (id: string) => {
    const approval = waiting(store);
    temp.db.prepare("UPDATE approvals SET id = ? WHERE id = ?").run(id, approval.id);
    return id;
  };
  const lone = named("36aa0000-1111-4222-8333-444455556666");
  const twin = named("7b3c1000-1111-4222-8333-444455556666");
  const other = named("7b3c1fff-1111-4222-8333-444455556666");

  await t.step("a prefix of four characters that fits one approval decides it", () => {
    const decided = approvals.decide({ id: "36aa", decision: "approve" });
    assertEquals([decided.id, decided.status], [lone, "approved"]);
  });
  await t.step("a prefix that fits several is refused, naming them", () => {
    assertEquals(refusal(() => approvals.decide({ id: "7b3c1", decision: "deny" })), {
      code: "invalid",
      field: "id",
      message: `Approval id '7b3c1' is ambiguous: it starts ${twin}, ${other} — give more of it`,
    });
    assertEquals(approvals.list().length, 2);
  });
  await t.step("a longer prefix tells them apart", () => {
    assertEquals(approvals.decide({ id: "7b3c1f", decision: "deny" }).id, other);
  });
  await t.step("fewer than four characters, or a prefix of nothing, names no approval", () => {
    assertEquals(
      refusal(() => approvals.decide({ id: "7b3", decision: "deny" })).message,
      "Approval '7b3' does not exist — give at least 4 characters of its id (the list of approvals shows them)",
    );
    assertEquals(refusal(() => approvals.decide({ id: "ffff", decision: "deny" })), {
      code: "not_found",
      field: "id",
      message: "Approval 'ffff' does not exist — the list of approvals shows the pending ones",
    });
  });
});
