/**
 * Channels the way a user meets them: `hob serve` with Telegram in hob.yaml
 * (a stand-in Bot API and a fake model on 127.0.0.1) answers on Telegram;
 * `hob channels`, `hob status` and the API say how the channel is doing, who
 * wrote without being allowed, and send a test message.
 */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";

Deno.test("hob serve answers on Telegram; hob channels, hob status and the API show it", async () => {
  await using model = startFakeOpenAI({ fallback: { text: "Hello from hob" } });
  await using telegram = await startFakeTelegram();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `channels:
  telegram:
    token_env: HOB_TEST_TELEGRAM_TOKEN
    api_root: "${telegram.url}"
    allow_from: [4242]
    poll_timeout_s: 1
`,
  ));
  await using hob = await startHob(home.home, [], {
    env: { HOB_TEST_TELEGRAM_TOKEN: telegram.token },
  });
  telegram.push({ from: { id: 8888, first_name: "Mallory" }, text: "let me in" });
  telegram.push({ from: { id: 4242, username: "ada" }, text: "hi" });
  await telegram.until(() => telegram.sentTo(4242).length === 1, "the owner's reply");
  assertEquals(telegram.sentTo(4242)[0].body.text, "Hello from hob");
  assertEquals(telegram.sentTo(8888), []);

  const home_ = ["--home", home.home];
  const list = await runHob(["channels", "list", ...home_]);
  assertEquals(list.code, 0, list.stderr + list.stdout);
  assertMatch(list.stdout, /telegram\s+connected as @hob_test_bot/);
  assertMatch(list.stdout, /as hob serve, pid \d+, sees it/);

  const same = await runHob(["channels", "status", ...home_]);
  assertMatch(same.stdout, /telegram\s+connected as @hob_test_bot/);

  const status = await runHob(["status", ...home_]);
  assertMatch(status.stdout, /channel\s+telegram @hob_test_bot: connected \(in .+, out .+\)/);

  // Run without the token, it opens the home itself: nothing about channels it does not start.
  const pending = await runHob(["channels", "pending", ...home_]);
  assertEquals(pending.stderr, "");
  assertMatch(pending.stdout, /telegram\s+8888\s+Mallory · 1 message\(s\)/);
  assertMatch(pending.stdout, /“let me in”/);

  const test = await runHob(["channels", "test", "telegram", ...home_]);
  assertEquals(test.code, 0, test.stderr);
  await telegram.until(() => telegram.sentTo(4242).length === 2, "the test message");
  assertMatch(String(telegram.sentTo(4242)[1].body.text), /test message you asked for/);
  const unknown = await runHob(["channels", "test", "matrix", ...home_]);
  assertEquals(unknown.code, 1);
  assertMatch(unknown.stderr, /The channel 'matrix' is not configured; there are: telegram/);

  // hob doctor checks the token with Telegram, and says when it is missing.
  const doctor = await runHob(["doctor", "--skip-model", ...home_], {
    env: { HOB_TEST_TELEGRAM_TOKEN: telegram.token },
  });
  assertMatch(
    doctor.stdout,
    /channel telegram.*connects as @hob_test_bot; answers 1 owner id\(s\)/,
  );
  const noToken = await runHob(["doctor", "--skip-model", ...home_]);
  assertMatch(
    noToken.stdout,
    /channel telegram.*not started: its secret is not set \(HOB_TEST_TELEGRAM_TOKEN is empty\)/,
  );

  // The API: the state, the strangers, forgetting one, and the test message.
  const channels = await (await hob.fetch("/api/channels")).json();
  assertEquals(channels.channels[0].state, "connected");
  const strangers = await (await hob.fetch("/api/channels/pending")).json();
  assertEquals(strangers.strangers.map((s: { sender_id: string }) => s.sender_id), ["8888"]);
  const forgot = await hob.fetch("/api/channels/pending/telegram/8888", { method: "DELETE" });
  assertEquals(forgot.status, 204);
  const again = await hob.fetch("/api/channels/pending/telegram/8888", { method: "DELETE" });
  assertEquals(again.status, 404);
  await again.body?.cancel();
  const bad = await hob.fetch("/api/channels/pending/irc/8888", { method: "DELETE" });
  assertEquals(bad.status, 400);
  assertMatch(JSON.stringify(await bad.json()), /channel/);
  const sent = await hob.fetch("/api/channels/telegram/test", { method: "POST" });
  assertEquals(await sent.json(), { sent: true });
  const none = await hob.fetch("/api/channels/email/test", { method: "POST" });
  assertEquals(none.status, 404);
  await none.body?.cancel();
  // The page lists the Telegram chat among the conversations.
  const page = await hob.fetch("/ui/conversations");
  assertMatch(await page.text(), /Telegram · @ada/);
  // The token never shows: not in status, not in what the server logged.
  assert(!(await (await hob.fetch("/api/status")).text()).includes(telegram.token));
  assert(!hob.stderr().includes(telegram.token));
});

Deno.test("hob channels without a server lists what hob.yaml configures, stopped", async () => {
  await using home = await tempHome(fakeProviderYaml(
    "http://127.0.0.1:9/v1",
    `channels:
  telegram:
    token: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    allow_from: [1]
`,
  ));
  const list = await runHob(["channels", "list", "--home", home.home]);
  assertEquals(list.code, 0, list.stderr);
  assertMatch(list.stdout, /telegram\s+stopped/);
  assertMatch(list.stdout, /hob serve is not running: it starts them/);
  const pending = await runHob(["channels", "pending", "--home", home.home]);
  assertMatch(pending.stdout, /Nobody unknown has written to hob/);
  const usage = await runHob(["channels", "shout", "--home", home.home]);
  assertEquals(usage.code, 2);
  assertMatch(usage.stderr, /unknown action 'shout'/);
});
