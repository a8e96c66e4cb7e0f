import { assertEquals } from "../helpers/assert.ts";
import { estimateMessageTokens, estimateTokens, fitHistory } from "../../src/core/budget.ts";
import type { ChatMessage } from "../../src/core/types.ts";
import { hobWrote } from "../../src/core/untrusted.ts";

Deno.test("estimateTokens counts about four characters a token", () => {
  assertEquals(estimateTokens(""), 0);
  assertEquals(estimateTokens("hello world"), 3);
  assertEquals(estimateTokens("x".repeat(4000)), 1000);
});

Deno.test("fitHistory keeps whole turns, newest first", async (t) => {
  const turn = (n: number, size: number): ChatMessage[] => [
    { role: "user", content: `${n}`.padEnd(size, "u") },
    { role: "assistant", content: "", tool_calls: [{ id: `c${n}`, name: "t", arguments: "{}" }] },
    { role: "tool", tool_call_id: `c${n}`, name: "t", content: hobWrote("r") },
    { role: "assistant", content: `${n}`.padEnd(size, "a") },
  ];
  const history = [...turn(1, 400), ...turn(2, 400), ...turn(3, 400)];
  const perTurn = turn(1, 400).reduce((sum, m) => sum + estimateMessageTokens(m), 0);

  await t.step("everything fits", () => {
    assertEquals(fitHistory(history, 10_000), { messages: history, dropped: 0 });
  });
  await t.step("the oldest turns go first, never splitting a call from its result", () => {
    const fitted = fitHistory(history, perTurn * 2);
    assertEquals(fitted.dropped, 4);
    assertEquals(fitted.messages, history.slice(4));
  });
  await t.step("the newest turn stays even when it alone is over budget", () => {
    const fitted = fitHistory(history, 10);
    assertEquals(fitted.messages, history.slice(8));
    assertEquals(fitted.dropped, 8);
  });
  await t.step("leading messages before the first user message are dropped", () => {
    const fitted = fitHistory([{ role: "assistant", content: "orphan" }, ...turn(1, 10)], 10_000);
    assertEquals(fitted.messages[0].role, "user");
    assertEquals(fitted.dropped, 1);
  });
});
