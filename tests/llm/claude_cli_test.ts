import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { createClaudeCliProvider, toPrompt } from "../../src/llm/claude_cli.ts";
import { makeFakeClaudeCli } from "../fakes/claude_cli.ts";
import { collect, failureOf, providerConfig, request, textOf } from "../helpers/providers.ts";
import { hobWrote } from "../../src/core/untrusted.ts";

const cli = (command: string) =>
  createClaudeCliProvider(
    providerConfig({ name: "claude-cli", type: "claude-cli", command, base_url: undefined }),
  );

Deno.test("createClaudeCliProvider runs claude -p with the system prompt and strips CLAUDECODE", async () => {
  await using fake = await makeFakeClaudeCli({ result: "Hi from the CLI" });
  Deno.env.set("CLAUDECODE", "1");
  try {
    const events = await collect(
      cli(fake.command).stream("sonnet", request({ system: "Be brief." })),
    );
    assertEquals(textOf(events), "Hi from the CLI");
    assertEquals(events.at(-2), {
      type: "usage",
      usage: { input_tokens: 7, output_tokens: 3, cache_read_tokens: 2 },
    });
    assertEquals(events.at(-1), { type: "done", stop_reason: "end_turn" });
    const run = await fake.lastRun();
    assertEquals(run.args, [
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "--model",
      "sonnet",
      "--system-prompt",
      "Be brief.",
    ]);
    assertEquals(run.stdin, "hi");
    assertEquals(run.claudecode, "unset");
  } finally {
    Deno.env.delete("CLAUDECODE");
  }
});

Deno.test("createClaudeCliProvider reports failures", async (t) => {
  await t.step("a non-zero exit quotes stderr", async () => {
    await using fake = await makeFakeClaudeCli({ fail: "not logged in", code: 3 });
    const [event] = await collect(cli(fake.command).stream("sonnet", request()));
    assertMatch(failureOf(event).message, /exited with 3: not logged in/);
  });
  await t.step("an is_error result", async () => {
    await using fake = await makeFakeClaudeCli({ is_error: "usage limit reached" });
    const [event] = await collect(cli(fake.command).stream("sonnet", request()));
    assertMatch(failureOf(event).message, /usage limit reached/);
  });
  await t.step("a missing program says how to fix it", async () => {
    const [event] = await collect(cli("/nonexistent/claude").stream("sonnet", request()));
    assertEquals(failureOf(event).code, "provider_unreachable");
    assertMatch(
      failureOf(event).message,
      /needs the '\/nonexistent\/claude' program.*providers\.claude-cli\.command/,
    );
  });
});

Deno.test("createClaudeCliProvider stops a CLI that goes quiet", async (t) => {
  const quietCli = (command: string) =>
    createClaudeCliProvider(
      providerConfig({
        name: "claude-cli",
        type: "claude-cli",
        command,
        base_url: undefined,
        idle_timeout_ms: 1_500,
      }),
    );
  await t.step("nothing printed for the idle timeout is an error naming the setting", async () => {
    await using fake = await makeFakeClaudeCli({ stall: true });
    const [event] = await collect(quietCli(fake.command).stream("sonnet", request()));
    assertEquals(failureOf(event).code, "provider_timeout");
    assertMatch(
      failureOf(event).message,
      /provider 'claude-cli' stopped sending mid-answer: nothing came for 1\.5 s.*providers\.claude-cli\.idle_timeout_ms/,
    );
  });
  await t.step("lines printed as it works keep a long run going", async () => {
    await using fake = await makeFakeClaudeCli({ result: "Worked.", partials: 5, every_s: 0.5 });
    const events = await collect(quietCli(fake.command).stream("sonnet", request()));
    assertEquals(textOf(events), "Worked.");
    assertEquals(events.at(-1), { type: "done", stop_reason: "end_turn" });
  });
});

Deno.test("toPrompt sends earlier turns as a transcript before the latest message", () => {
  assertEquals(toPrompt([{ role: "user", content: "only" }]), "only");
  assertEquals(
    toPrompt([
      { role: "user", content: "time?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "1", name: "get_time", arguments: "{}" }],
      },
      { role: "tool", tool_call_id: "1", name: "get_time", content: hobWrote("noon") },
      { role: "assistant", content: "It is noon." },
      { role: "user", content: "thanks" },
    ]),
    "# Conversation so far\n\nUser: time?\n\nAssistant: [Called get_time {}]\n\n[Result of get_time]: noon\n\nAssistant: It is noon.\n\n# Latest message\n\nthanks",
  );
});
