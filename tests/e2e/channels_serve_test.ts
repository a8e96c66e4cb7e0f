/**
 * Each chat channel starts under hob's own flags: one real `hob serve` (the
 * `hob` task's flags, every permission check audited) with Telegram and
 * Matrix pointed at their stand-ins on 127.0.0.1 and the fake model. Both
 * connect, `/api/status` and `hob status` say so, and the owner is answered
 * on each. Email, on real mail servers, is in email_serve_test.ts.
 */

import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { startFakeMatrix } from "../fakes/matrix_server.ts";
import { startFakeTelegram } from "../fakes/telegram_server.ts";
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { untilConnected, untilReading } from "../helpers/channels.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob, startHob } from "../helpers/hob_process.ts";

const OWNER = 4242;
const MX_OWNER = "@ada:test";

Deno.test("hob serve as shipped starts Telegram and Matrix, shows them connected, and answers on each", async () => {
  await using model = startFakeOpenAI({ fallback: { text: "Hello from hob" } });
  await using telegram = await startFakeTelegram();
  await using matrix = startFakeMatrix();
  await using home = await tempHome(fakeProviderYaml(
    model.url,
    `memory: { embedder: none }
channels:
  telegram:
    token: "${telegram.token}"
    api_root: "${telegram.url}"
    allow_from: [${OWNER}]
    poll_timeout_s: 1
  matrix:
    homeserver: "${matrix.url}"
    user_id: "${matrix.userId}"
    access_token: "${matrix.token}"
    allow_from: ["${MX_OWNER}"]
    poll_timeout_s: 1
`,
  ));
  await using hob = await startHob(home.home);
  assertEquals((await untilConnected(hob, "telegram")).account, "@hob_test_bot");
  assertEquals((await untilConnected(hob, "matrix")).account, matrix.userId);
  await untilReading(home.home, "matrix");

  telegram.push({ from: { id: OWNER, first_name: "Ada" }, text: "hi on Telegram" });
  await telegram.until(() => telegram.sentTo(OWNER).length === 1, "the answer on Telegram");
  assertEquals(telegram.sentTo(OWNER)[0].body.text, "Hello from hob");
  matrix.room("!dm:test", 2);
  matrix.push("!dm:test", { sender: MX_OWNER, body: "hi on Matrix" });
  await matrix.until(() => matrix.sentTo("!dm:test").length > 0, "the answer on Matrix");
  assertEquals(matrix.sentTo("!dm:test")[0].content.body, "Hello from hob");

  const status = await (await hob.fetch("/api/status")).json();
  assertEquals(
    (status.channels as { name: string; state: string }[])
      .map(({ name, state }) => `${name} ${state}`).sort(),
    ["matrix connected", "telegram connected"],
  );
  const shown = await runHob(["status", "--home", home.home]);
  assertEquals(shown.code, 0, shown.stderr);
  assertMatch(shown.stdout, /channel\s+telegram @hob_test_bot: connected/);
  assertMatch(shown.stdout, /matrix @hob:test: connected/);
});
