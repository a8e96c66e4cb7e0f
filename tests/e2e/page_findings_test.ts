/**
 * What a new user's first hour found in the page (issue 16), in headless
 * Chromium against a real `hob serve` and a fake provider: a failed turn that
 * vanished on reload, a refused message lost from the box, a schedules form
 * wiped by one bad field, a "no provider" banner that ignored the configured
 * provider, and a phone layout whose sidebar ate the chat.
 */

import type { Page } from "playwright-core";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import type { FakeReply } from "../fakes/openai_server.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { launchBrowser, pageProblems } from "../helpers/browser.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { startHob } from "../helpers/hob_process.ts";
import { closedPort } from "../helpers/providers.ts";
import { changingServer } from "../helpers/mcp.ts";

/** What the fake provider says when it fails. */
const BROKEN = "the fake provider broke";

/** The fake model: fails on "fail", calls a tool on "time", answers anything else. */
function reply(body: Record<string, unknown>): FakeReply {
  const messages = body.messages as { role: string; content: string }[];
  const last = messages.at(-1)!;
  if (last.role === "tool") return { text: "It is noon." };
  const text = String(last.content).toLowerCase();
  if (text.includes("fail")) return { status: 500, message: BROKEN };
  if (text.includes("time")) {
    return { tool_calls: [{ name: "get_time", arguments: { timezone: "Asia/Tokyo" } }] };
  }
  return { text: "Hello from the fake model." };
}

/** The browser's document, as little of it as the tests read (inside the page: written out there). */
interface Doc {
  documentElement: { scrollWidth: number };
  activeElement: { getAttribute(name: string): string | null } | null;
}

async function signIn(page: Page, hob: { url: string; token: string }): Promise<void> {
  await page.goto(`${hob.url}/?token=${hob.token}`);
  await page.waitForSelector("#composer-input");
}

async function send(page: Page, text: string): Promise<void> {
  await page.fill("#composer-input", text);
  await page.press("#composer-input", "Enter");
}

Deno.test("the page keeps what failed or was refused: a failed reply, a message, a form", async (t) => {
  await using fake = startFakeOpenAI({ respond: reply });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await signIn(page, hob);

  await t.step(
    "a failed turn shows its reply with the error, and still does after a reload",
    async () => {
      await send(page, "Please fail now");
      const failed = page.locator(".msg.assistant.failed");
      await failed.locator(".meta:not(:empty)").waitFor();
      assertStringIncludes(await failed.locator(".error").textContent() ?? "", BROKEN);
      assertMatch(await failed.locator(".meta").textContent() ?? "", /· failed$/);
      const id = new URL(page.url()).pathname.split("/")[2];

      await page.reload();
      await page.locator(".msg.user", { hasText: "Please fail now" }).waitFor();
      await failed.waitFor();
      assertStringIncludes(await failed.locator(".error").textContent() ?? "", BROKEN);
      assertMatch(await failed.locator(".meta").textContent() ?? "", /failed$/);

      const { messages } = await (await hob.fetch(`/api/conversations/${id}/messages`)).json();
      const last = messages.at(-1);
      assertEquals([last.role, last.status, last.error.code], [
        "assistant",
        "error",
        "provider_error",
      ]);
      assertStringIncludes(last.error.message, BROKEN);

      // The next turn reads a valid history: the user's two messages, not the error as the model's words.
      await send(page, "Hello again");
      await page.locator(".msg.assistant", { hasText: "Hello from the fake model." }).waitFor();
      const sent = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
      assertEquals(sent.filter((m) => m.role !== "system").map((m) => m.role), ["user", "user"]);
      assert(!JSON.stringify(sent).includes(BROKEN));
    },
  );

  await t.step("a message hob refuses stays in the box, with hob's reason", async (t) => {
    await page.click("#new-chat");
    const box = page.locator("#composer-input");
    await t.step("over the 500,000-character message limit", async () => {
      const long = "a".repeat(500_001);
      await send(page, long);
      await page.locator(".notice", { hasText: "500000" }).waitFor();
      assertStringIncludes(await page.locator(".notice").last().textContent() ?? "", "'message'");
      assertEquals((await box.inputValue()).length, 500_001);
      assertEquals(await page.locator(".msg.user").count(), 0);
    });
    await t.step("over the body limit (server.max_body_bytes)", async () => {
      await send(page, "b".repeat(1_100_000));
      await page.locator(".notice", { hasText: "larger than 1048576 bytes" }).waitFor();
      assertEquals((await box.inputValue()).length, 1_100_000);
      assertEquals(await page.locator(".msg.user").count(), 0);
    });
    await t.step(
      "once it is short enough it is sent, and only then the box is cleared",
      async () => {
        await send(page, "Short now");
        await page.locator(".msg.assistant", { hasText: "Hello from the fake model." }).waitFor();
        assertEquals(await page.locator(".msg.user").last().textContent(), "Short now");
        assertEquals(await box.inputValue(), "");
      },
    );
  });

  await t.step("the schedules form keeps what was typed and marks the refused field", async () => {
    await page.click(".sections a[data-view=schedules]");
    await page.fill("input[name=name]", "greeting");
    await page.fill("input[name=schedule]", "every blue moon");
    await page.fill("input[name=timezone]", "Europe/Lisbon");
    await page.fill("textarea[name=prompt]", "Say hello");
    await page.selectOption("select[name=missed_policy]", "skip");
    await page.getByRole("button", { name: "Add job" }).click();
    const problem = page.locator("#job-schedule-problem");
    await problem.waitFor();
    assert((await problem.textContent())!.length > 0);
    const values = async () => ({
      name: await page.inputValue("input[name=name]"),
      schedule: await page.inputValue("input[name=schedule]"),
      timezone: await page.inputValue("input[name=timezone]"),
      prompt: await page.inputValue("textarea[name=prompt]"),
      missed_policy: await page.inputValue("select[name=missed_policy]"),
    });
    assertEquals(await values(), {
      name: "greeting",
      schedule: "every blue moon",
      timezone: "Europe/Lisbon",
      prompt: "Say hello",
      missed_policy: "skip",
    });
    const invalid = () =>
      page.locator("#panel [aria-invalid=true]").evaluateAll((nodes) =>
        nodes.map((node) => (node as unknown as { name: string }).name)
      );
    assertEquals(await invalid(), ["schedule"]);
    assertEquals(
      await page.getAttribute("input[name=schedule]", "aria-describedby"),
      "job-schedule-problem",
    );
    assertEquals(
      await page.evaluate(() =>
        (globalThis as unknown as { document: Doc }).document.activeElement?.getAttribute("name")
      ),
      "schedule",
    );

    // A bad zone is pointed at in its turn; the rest is still there.
    await page.fill("input[name=schedule]", "0 9 * * *");
    await page.fill("input[name=timezone]", "Mars/Olympus_Mons");
    await page.getByRole("button", { name: "Add job" }).click();
    await page.locator("#job-timezone-problem").waitFor();
    assertEquals(await invalid(), ["timezone"]);
    assertEquals((await values()).prompt, "Say hello");

    await page.fill("input[name=timezone]", "Europe/Lisbon");
    await page.getByRole("button", { name: "Add job" }).click();
    await page.getByText("Added “greeting”.").waitFor();
    assertEquals(await invalid(), []);
    assertEquals(await page.inputValue("input[name=name]"), "");
  });

  await context.close();
  assertEquals(problems.filter((p) => !/Failed to load resource/.test(p)), []);
});

Deno.test("with no provider answering, the banner speaks of the provider hob.yaml configures", async (t) => {
  const dead = closedPort();
  const deadUrl = `http://127.0.0.1:${dead}/v1`;
  // The built-in local servers point at the closed port too, so no real one on this machine answers.
  const yaml = (model: string) =>
    `model: ${model}
providers:
  mybox: { type: openai, base_url: "${deadUrl}", api_key: "x", max_retries: 0 }
  ollama: { base_url: "${deadUrl}" }
  lmstudio: { base_url: "${deadUrl}" }
memory: { embedder: none }
`;
  await using browser = await launchBrowser();
  const bannerOf = async (model: string) => {
    await using home = await tempHome(yaml(model));
    await using hob = await startHob(home.home);
    const page = await browser.newPage();
    await signIn(page, hob);
    const banner = page.locator("#model-banner");
    await banner.waitFor();
    const text = await banner.textContent() ?? "";
    await page.close();
    return text;
  };

  await t.step("a provider of one's own: its name and address, no Ollama advice", async () => {
    const text = await bannerOf("mybox/m");
    assertStringIncludes(text, "No model provider answered");
    assertStringIncludes(text, "mybox/m");
    assertStringIncludes(text, deadUrl);
    assertStringIncludes(text, "providers.mybox");
    assertStringIncludes(text, "hob onboard");
    assert(!text.includes("ollama serve"), text);
    assert(!text.includes("API_KEY"), text);
  });

  await t.step("a built-in provider: how to start one or set a key", async () => {
    const text = await bannerOf("ollama/llama3.2");
    assertStringIncludes(text, "ollama serve");
    assertStringIncludes(text, "OPENROUTER_API_KEY");
    assertStringIncludes(text, "hob onboard");
  });
});

Deno.test("on a 390×844 phone the chat has the height, the Tools and MCP cards fit, tool cards show they open", async () => {
  await using fake = startFakeOpenAI({ respond: reply });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  // An MCP tool waiting for approval, whose words run long without a break.
  const server = await changingServer(home.home, [{
    name: "wide",
    description: `Reads ${"x".repeat(300)} and more.`,
    inputSchema: { type: "object", properties: { [`p${"y".repeat(200)}`]: { type: "string" } } },
  }]);
  await Deno.writeTextFile(
    `${home.home}/hob.yaml`,
    fakeProviderYaml(fake.url, `memory: { embedder: none }\nmcpServers:\n${server.yaml("wide")}`),
  );
  await using hob = await startHob(home.home);
  await using browser = await launchBrowser();
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
  });
  const page = await context.newPage();
  const problems = pageProblems(page);
  await signIn(page, hob);
  const toggle = page.locator("#sidebar-toggle");
  const height = async (selector: string) => (await page.locator(selector).boundingBox())!.height;

  // Folded, the sidebar is one row: the chat keeps the screen.
  assert(await toggle.isVisible());
  assertEquals(await toggle.getAttribute("aria-expanded"), "false");
  const share = await height(".sidebar") / 844;
  assert(share <= 0.1, `the sidebar takes ${Math.round(share * 100)}% of the height`);
  assert(!(await page.locator(".sections").isVisible()));
  assert(await height("#messages") >= 844 * 0.5, "the messages have half the screen at least");

  // A tool card says it opens, and turns its chevron when it does.
  await send(page, "What time is it in Tokyo?");
  const card = page.locator("details.tool.done").last();
  await card.waitFor();
  const chevron = card.locator("summary .chevron");
  assert(await chevron.isVisible(), "a tool card shows a chevron");
  const turn = () =>
    chevron.evaluate((node) =>
      (globalThis as unknown as { getComputedStyle(n: unknown): { transform: string } })
        .getComputedStyle(node).transform
    );
  assertEquals(await turn(), "none");
  await card.locator("summary").click();
  await card.locator("pre.args").waitFor();
  assert((await turn()) !== "none", "the chevron turns when the card opens");

  // Menu opens the sidebar; going somewhere folds it again.
  await toggle.click();
  assertEquals(await toggle.getAttribute("aria-expanded"), "true");
  await page.locator(".sections a[data-view=tools]").click();
  assertEquals(await toggle.getAttribute("aria-expanded"), "false");
  assert(!(await page.locator(".sections").isVisible()));

  // The Tools cards are inside the screen, their long words wrapped.
  const getTime = page.locator("#panel li[data-name=get_time]");
  await getTime.waitFor();
  const box = (await getTime.boundingBox())!;
  assert(box.x >= 0 && box.x + box.width <= 390, `the card spans ${box.x}–${box.x + box.width}px`);
  // A waiting MCP tool's card wraps its long words inside the screen.
  const waiting = page.locator("#panel li[data-tool=wide__wide]");
  await waiting.waitFor();
  await waiting.locator("details summary").click();
  const wide = (await waiting.boundingBox())!;
  assert(wide.x + wide.width <= 390, `the card spans ${wide.x}–${wide.x + wide.width}px`);
  const width = await page.evaluate(() =>
    (globalThis as unknown as { document: Doc }).document.documentElement.scrollWidth
  );
  assert(width <= 390, `the page is ${width}px wide`);

  await context.close();
  assertEquals(problems.filter((p) => !/Failed to load resource/.test(p)), []);
});
