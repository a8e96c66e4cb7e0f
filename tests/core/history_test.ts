import { assertEquals } from "../helpers/assert.ts";
import { INTERRUPTED_MARKER, MISSING_TOOL_RESULT, toChatHistory } from "../../src/core/history.ts";
import type { StoredMessage } from "../../src/core/types.ts";

let nextId = 1;
function row(partial: Partial<StoredMessage> & Pick<StoredMessage, "role">): StoredMessage {
  return {
    id: nextId++,
    conversation_id: "c",
    content: "",
    tool_calls: null,
    tool_call_id: null,
    tool_name: null,
    is_error: false,
    model: null,
    input_tokens: null,
    output_tokens: null,
    status: "complete",
    attachments: null,
    taint: null,
    error: null,
    created_at: "2026-11-22T00:00:00.000Z",
    ...partial,
  };
}

const call = (id: string) => ({ id, name: "get_time", arguments: "{}" });

Deno.test("toChatHistory repairs ragged histories", async (t) => {
  await t.step("a tool call without a stored result gets a synthetic error result", () => {
    assertEquals(
      toChatHistory([
        row({ role: "user", content: "time?" }),
        row({ role: "assistant", tool_calls: [call("a"), call("b")] }),
        row({ role: "tool", tool_call_id: "a", tool_name: "get_time", content: "noon" }),
        row({ role: "user", content: "again?" }),
      ]),
      [
        { role: "user", content: "time?" },
        { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
        { role: "tool", tool_call_id: "a", name: "get_time", content: "noon", is_error: false },
        {
          role: "tool",
          tool_call_id: "b",
          name: "get_time",
          content: MISSING_TOOL_RESULT,
          is_error: true,
        },
        { role: "user", content: "again?" },
      ],
    );
  });
  await t.step("results of unknown calls and system rows are dropped", () => {
    assertEquals(
      toChatHistory([
        row({ role: "system", content: "old system" }),
        row({ role: "tool", tool_call_id: "ghost", content: "?" }),
        row({ role: "user", content: "hi" }),
      ]),
      [{ role: "user", content: "hi" }],
    );
  });
  await t.step(
    "a failed reply's text is marked as cut off; its error never reaches the model",
    () => {
      const error = { code: "provider_error", message: "provider 'fake' answered 500" };
      assertEquals(
        toChatHistory([
          row({ role: "user", content: "a" }),
          row({ role: "assistant", content: "Half", status: "error", error }),
          row({ role: "user", content: "b" }),
          row({ role: "assistant", content: "", status: "error", error }),
          row({ role: "user", content: "c" }),
        ]),
        [
          { role: "user", content: "a" },
          { role: "assistant", content: `Half\n\n${INTERRUPTED_MARKER}` },
          { role: "user", content: "b" },
          { role: "user", content: "c" },
        ],
      );
    },
  );
  await t.step("interrupted replies are marked; empty failed ones are skipped", () => {
    assertEquals(
      toChatHistory([
        row({ role: "user", content: "a" }),
        row({ role: "assistant", content: "Half", status: "interrupted" }),
        row({ role: "user", content: "b" }),
        row({ role: "assistant", content: "", status: "error" }),
        row({ role: "user", content: "c" }),
      ]),
      [
        { role: "user", content: "a" },
        { role: "assistant", content: `Half\n\n${INTERRUPTED_MARKER}` },
        { role: "user", content: "b" },
        { role: "user", content: "c" },
      ],
    );
  });
});
