/** email_file against a real SMTP server on 127.0.0.1. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeSmtp } from "../fakes/smtp_server.ts";
import { tempRegistry, unmark } from "../helpers/tools.ts";

type R = Awaited<ReturnType<typeof tempRegistry>>;
const call = (r: R, args: unknown) =>
  r.registry.execute({ id: "1", name: "email_file", arguments: JSON.stringify(args) }, {
    conversation_id: null,
  });

Deno.test("email_file sends the file, a .txt as .docx, to the configured address", async () => {
  await using smtp = await startFakeSmtp();
  const email = {
    smtp: { host: "127.0.0.1", port: smtp.port, secure: false },
    from: "hob@home.test",
    to: "me@home.test",
  };
  await using r = await tempRegistry({
    policies: { email_file: "allow" },
    settings: { email_file: { email } },
  });
  await Deno.writeTextFile(`${r.workspace}/report.txt`, "Line one\nLine two");

  const result = await call(r, { path: "report.txt", subject: "Weekly report" });
  assertEquals(result.is_error, false, result.content);
  // Labelled: a mail server's answers (its errors above all) are outside text.
  assertMatch(unmark(result.content), /^Sent report\.docx to me@home\.test/);
  assertEquals(smtp.mails.length, 1);
  const mail = smtp.mails[0];
  assertEquals([mail.from, mail.to], ["hob@home.test", ["me@home.test"]]);
  assertStringIncludes(mail.raw, "Subject: Weekly report");
  assertStringIncludes(mail.raw, "filename=report.docx");
  assertStringIncludes(
    mail.raw,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  );
  // A .docx is a zip: its base64 starts with "UEsD" ("PK\x03\x04").
  assertStringIncludes(mail.raw, "UEsD");

  const logged = r.events.list(null).at(-1)!;
  assertEquals(
    logged.permissions?.net,
    [`127.0.0.1:${smtp.port}`],
    "the Worker could reach only the SMTP server",
  );
});

Deno.test("email_file is off until configured, and asks before sending by default", async (t) => {
  await t.step("not configured", async () => {
    await using r = await tempRegistry({ policies: { email_file: "allow" } });
    await Deno.writeTextFile(`${r.workspace}/a.txt`, "x");
    const result = await call(r, { path: "a.txt", to: "x@y.z" });
    assert(result.is_error);
    assertMatch(result.content, /Email is not configured: add an `email:` section/);
  });
  await t.step("the default policy for an external side effect is ask", async () => {
    await using r = await tempRegistry();
    assertEquals(r.registry.list().find((tool) => tool.name === "email_file")?.policy, "ask");
  });
});
