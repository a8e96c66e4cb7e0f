/** The tool routes and approvals inside a streamed turn, through the real API, runtime and Workers. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, parseSse, type SseEvent } from "../helpers/home.ts";
import { tempApi as setup } from "../helpers/api.ts";
import { unmark } from "../helpers/tools.ts";

/** Reads SSE events as they arrive, so the test can act in the middle of a turn. */
function sseReader(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const seen: SseEvent[] = [];
  return {
    seen,
    async until(type: string): Promise<SseEvent> {
      while (true) {
        const found = seen.find((e) => e.event === type);
        if (found) return found;
        const { value, done } = await reader.read();
        if (done) {
          throw new Error(
            `stream ended before '${type}': ${JSON.stringify(seen.map((e) => e.event))}`,
          );
        }
        buffer += value;
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop()!;
        seen.push(...parseSse(blocks.join("\n\n") + "\n\n"));
      }
    },
  };
}

Deno.test("an 'ask' tool pauses the stream until the user decides", async (t) => {
  await using fake = startFakeOpenAI();
  await using api = await setup(
    fakeProviderYaml(fake.url, "tools: { policies: { list_directory: ask } }"),
  );

  await t.step("approve: it runs and the turn continues", async () => {
    fake.enqueue({ tool_calls: [{ name: "list_directory", arguments: {} }] }, {
      text: "Your workspace is empty.",
    });
    const response = await api.call("/api/chat", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { message: "What is in my workspace?" },
    });
    const stream = sseReader(response);
    const request = (await stream.until("approval_required")).data as {
      approval_id: string;
      name: string;
    };
    assertEquals(request.name, "list_directory");
    const pending = await (await api.call("/api/approvals")).json();
    assertEquals(pending.approvals.map((a: { id: string }) => a.id), [request.approval_id]);

    const decided = await api.call(`/api/approvals/${request.approval_id}`, {
      method: "POST",
      json: { decision: "approve" },
    });
    assertEquals((await decided.json()).status, "approved");
    const result = (await stream.until("tool_result")).data as {
      content: string;
      is_error: boolean;
    };
    // A listing shows names from outside (a cloned repository can plant them): it is labelled.
    assertEquals([result.is_error, unmark(result.content)], [false, ".: 0 entries (empty)"]);
    assertMatch(result.content, /^<untrusted source="list_directory: \.">/);
    await stream.until("done");
    assertEquals(stream.seen.map((e) => e.event).filter((e) => e !== "text"), [
      "start",
      "tool_call",
      "approval_required",
      "approval_resolved",
      "notice", // the listing tainted the turn
      "tool_result",
      "title",
      "done",
    ]);
    const again = await api.call(`/api/approvals/${request.approval_id}`, {
      method: "POST",
      json: { decision: "deny" },
    });
    assertEquals(again.status, 409);
    await again.body?.cancel();
  });

  await t.step("deny: the model is told and answers without it", async () => {
    fake.enqueue({ tool_calls: [{ name: "list_directory", arguments: {} }] }, {
      text: "I could not look.",
    });
    const response = await api.call("/api/chat", {
      method: "POST",
      headers: { accept: "text/event-stream" },
      json: { message: "Look again" },
    });
    const stream = sseReader(response);
    const request = (await stream.until("approval_required")).data as { approval_id: string };
    await (await api.call(`/api/approvals/${request.approval_id}`, {
      method: "POST",
      json: { decision: "deny" },
    })).body
      ?.cancel();
    const result = (await stream.until("tool_result")).data as {
      content: string;
      is_error: boolean;
    };
    assert(result.is_error);
    assertMatch(result.content, /^The user denied this call of list_directory/);
    await stream.until("done");
    const told = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
    assertMatch(told.at(-1)!.content, /The user denied this call/);
    const text = stream.seen.filter((e) => e.event === "text").map((e) =>
      (e.data as { text: string }).text
    ).join("");
    assertEquals(text, "I could not look.");
  });

  await t.step("a decision on an unknown approval is a 404, a bad one a 400", async () => {
    const missing = await api.call("/api/approvals/nope", {
      method: "POST",
      json: { decision: "approve" },
    });
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
    const bad = await api.call("/api/approvals/nope", {
      method: "POST",
      json: { decision: "maybe" },
    });
    assertEquals(bad.status, 400);
    assertEquals((await bad.json()).error.field, "decision");
  });
});

Deno.test("GET /api/tools, direct invocation and the audit log", async (t) => {
  await using fake = startFakeOpenAI({
    replies: [{ tool_calls: [{ id: "t1", name: "get_time", arguments: { timezone: "UTC" } }] }, {
      text: "Noon.",
    }],
  });
  await using api = await setup(fakeProviderYaml(fake.url));

  await t.step("the tool list shows permissions and policies", async () => {
    const { tools } = await (await api.call("/api/tools")).json();
    const read = tools.find((tool: { name: string }) => tool.name === "read_file");
    // The workspace, and the files the user sent with messages.
    assertEquals(read.permissions.read, [
      api.runtime.toolbox.scope.workspace,
      `${api.home.home}/uploads`,
    ]);
    assertEquals(read.permissions.net, false);
    assertEquals(read.policy, "allow");
    assertEquals(tools.find((tool: { name: string }) => tool.name === "email_file").policy, "ask");
    assertEquals(
      tools.find((tool: { name: string }) => tool.name === "run_command").permissions.run,
      ["bash"],
    );
  });
  await t.step("invoke runs a tool as the owner", async () => {
    await Deno.writeTextFile(`${api.runtime.toolbox.scope.workspace}/hello.txt`, "hi there");
    const response = await api.call("/api/tools/read_file/invoke", {
      method: "POST",
      json: { args: { path: "hello.txt" } },
    });
    const result = await response.json();
    assertEquals([result.content, result.is_error], ["hi there", false]);
    assert(result.event_id > 0);
    const unknown = await api.call("/api/tools/nope/invoke", {
      method: "POST",
      json: { args: {} },
    });
    assertEquals(unknown.status, 404);
    await unknown.body?.cancel();
    const bad = await api.call("/api/tools/read_file/invoke", {
      method: "POST",
      json: { args: { path: 7 } },
    });
    const badResult = await bad.json();
    assertEquals(badResult.is_error, true);
    assertMatch(badResult.content, /Invalid arguments for read_file: path/);
  });
  await t.step(
    "a conversation's events list every call with arguments, result, permissions and approval",
    async () => {
      const reply =
        await (await api.call("/api/chat", { method: "POST", json: { message: "time?" } })).json();
      const { events } =
        await (await api.call(`/api/conversations/${reply.conversation_id}/events`)).json();
      assertEquals(events.length, 1);
      const event = events[0];
      assertEquals(
        [event.tool, event.tool_call_id, event.arguments, event.approval, event.source],
        [
          "get_time",
          "t1",
          '{"timezone":"UTC"}',
          "policy",
          "agent",
        ],
      );
      assertStringIncludes(event.result, "UTC:");
      assertEquals(event.permissions, {
        read: false,
        write: false,
        net: false,
        env: false,
        run: false,
      });
      assert(event.duration_ms >= 0);
      const missing = await api.call("/api/conversations/nope/events");
      assertEquals(missing.status, 404);
      await missing.body?.cancel();
    },
  );
});
