/**
 * What the page shows people, in headless Chromium against a real `hob serve`
 * and a fake provider: outside text in a tool card as the text and a marker
 * naming its source (never the model's label), the untrusted-content notice
 * once per conversation, the policy calls really get, and times in the user's
 * zone, labelled.
 */

import { Buffer } from "node:buffer";
import { type FakeReply, startFakeOpenAI } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";

const NOTES = "Buy oat milk.\nCall the plumber.";

/** The fake model: reads the notes when asked, and answers anything else. */
function reply(body: Record<string, unknown>): FakeReply {
  const messages = body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1)!;
  if (last.role === "tool") return { text: "I read your notes." };
  if (JSON.stringify(last.content).includes("Read my notes")) {
    return { tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] };
  }
  return { text: "Hello from the fake model." };
}

Deno.test("the page shows outside text with its source, the notice once, the policy in effect and labelled times", async (t) => {
  await using fake = startFakeOpenAI({ respond: reply });
  await using home = await tempHome(
    fakeProviderYaml(fake.url, "memory: { embedder: none }\nheartbeat: { enabled: false }"),
  );
  await Deno.writeTextFile(`${home.home}/workspace/notes.md`, NOTES);
  await using hob = await startHob(home.home, [], { env: { TZ: "Asia/Tokyo" } });
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const problems = pageProblems(page);
  const send = async (text: string) => {
    await page.fill("#composer-input", text);
    await page.press("#composer-input", "Enter");
  };
  /** Waits until `count` replies of this view have finished. */
  const replies = (count: number) =>
    page.locator(".msg.assistant .meta:not(:empty)").nth(count - 1).waitFor();
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.waitForSelector("#composer-input");

  await t.step("a tool card shows the file with a marker naming it, not the label", async () => {
    await send("Read my notes");
    await page.getByText("I read your notes.").waitFor();
    const check = async () => {
      const card = page.locator("details.tool", { hasText: "read_file" }).last();
      await card.locator("summary").click();
      const result = card.locator("pre.result");
      await result.waitFor();
      const text = await result.textContent() ?? "";
      assert(!text.includes("<untrusted") && !text.includes("</untrusted"), text);
      assertStringIncludes(text, NOTES);
      assertMatch(await result.locator(".source").textContent() ?? "", /^from read_file\b/);
    };
    await check();
    // The stored conversation shows the same, after a reload.
    await page.reload();
    await page.getByText("I read your notes.").waitFor();
    await check();
  });

  await t.step(
    "the untrusted-content notice shows on the turn that read it, not later",
    async () => {
      await page.click("#new-chat");
      await page.setInputFiles("#attach-input", {
        name: "todo.txt",
        mimeType: "text/plain",
        buffer: Buffer.from(NOTES),
      });
      await send("What is in this?");
      await replies(1);
      const notices = page.locator(".notice", { hasText: "untrusted content" });
      assertEquals(await notices.count(), 1);
      await send("And what else?");
      await replies(2);
      await send("Anything more?");
      await replies(3);
      assertEquals(await notices.count(), 1);
    },
  );

  await t.step("the Tools panel shows the policy commands really get", async () => {
    await page.click(".sections a[data-view=tools]");
    const card = page.locator("#panel li[data-name=run_command]");
    await card.waitFor();
    assertEquals(await card.locator(".policy").textContent(), "allowlist, else ask");
    const python = page.locator("#panel li[data-name=run_python]");
    assertEquals(await python.locator(".policy").textContent(), "ask");
  });

  await t.step("the Schedules panel shows times in the user's zone, labelled", async () => {
    const created = await hob.fetch("/api/schedules", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "plan",
        prompt: "Plan my day",
        schedule: "30 7 * * *",
        timezone: "Europe/Berlin",
      }),
    });
    assertEquals(created.status, 201, await created.clone().text());
    await page.click(".sections a[data-view=schedules]");
    const card = page.locator("#panel li", { hasText: "plan" });
    await card.waitFor();
    // 07:30 in Berlin is 14:30 or 15:30 in Tokyo, where hob runs: shown so, and labelled.
    assertMatch(await card.textContent() ?? "", /next \d{4}-\d\d-\d\d 1[45]:30 GMT\+9/);
  });

  assertEquals(problems, []);
  await context.close();
});
