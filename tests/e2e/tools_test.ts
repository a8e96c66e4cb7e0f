/** Tools as a user meets them: `hob serve` as a subprocess, a fake model, real Workers. */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, parseSse, tempHome } from "../helpers/home.ts";
import { cleanEnv, hobArgv, runHob, startHob } from "../helpers/hob_process.ts";
import { makeCertificates } from "../helpers/tls.ts";

const SHOUT = `import { z } from "zod";
export default {
  name: "shout",
  description: "Upper-case a text",
  category: "text",
  side_effect: "none",
  parameters: z.object({ text: z.string() }),
  run({ text }) { return text.toUpperCase() + "!"; },
};`;

Deno.test("the model builds a tool, uses it in the same conversation, and it is still there after a restart", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          id: "b1",
          name: "build_tool",
          arguments: { name: "shout", description: "Upper-case a text", code: SHOUT },
        }],
      },
      { tool_calls: [{ id: "s1", name: "shout", arguments: { text: "hello hob" } }] },
      { text: "Done: HELLO HOB!" },
    ],
  });
  await using home = await tempHome(
    fakeProviderYaml(fake.url, "tools: { policies: { build_tool: allow } }"),
  );
  {
    await using hob = await startHob(home.home);
    const response = await hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "Make me a shout tool and shout 'hello hob'" }),
    });
    const events = parseSse(await response.text());
    const results = events.filter((e) => e.event === "tool_result").map((e) =>
      e.data as { name: string; content: string; is_error: boolean }
    );
    assertEquals(results.map((r) => [r.name, r.is_error]), [["build_tool", false], [
      "shout",
      false,
    ]]);
    assertMatch(
      results[0].content,
      /^Built the tool 'shout' \(no permissions\)\. It can be called now\.$/,
    );
    assertEquals(results[1].content, "HELLO HOB!");
    // The model was offered the new tool in the same turn.
    const offered = (fake.requests[1].body.tools as { function: { name: string } }[]).map((t) =>
      t.function.name
    );
    assertEquals(offered.includes("shout"), true);
    assertEquals(await Deno.readTextFile(`${home.home}/tools/shout.ts`), SHOUT);
    await hob.stop();
  }
  await using again = await startHob(home.home);
  const { tools } = await (await again.fetch("/api/tools")).json();
  const shout = tools.find((t: { name: string }) => t.name === "shout");
  assertEquals(shout.origin, { kind: "user", file: `${home.home}/tools/shout.ts` });
  const invoked = await (await again.fetch("/api/tools/shout/invoke", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ args: { text: "again" } }),
  })).json();
  assertEquals(invoked.content, "AGAIN!");
  // The tool is in the file history, written by the agent in that conversation.
  const { versions } = await (await again.fetch("/api/memory/history?path=tools/shout.ts")).json();
  assertEquals(versions.map((v: { author: string; via: string }) => `${v.author} ${v.via}`), [
    "agent build_tool",
  ]);
});

Deno.test("build_tool refuses to overwrite, and deletes what does not load", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        tool_calls: [{
          name: "build_tool",
          arguments: { name: "read_file", description: "x", code: SHOUT },
        }],
      },
      {
        tool_calls: [{
          name: "build_tool",
          arguments: { name: "broken", description: "x", code: "export default {" },
        }],
      },
      {
        tool_calls: [{
          name: "build_tool",
          arguments: {
            name: "greedy",
            description: "x",
            code: SHOUT.replace('"shout"', '"greedy"').replace(
              "side_effect",
              'permissions: { net: ["*"] }, side_effect',
            ),
          },
        }],
      },
      { text: "ok" },
    ],
  });
  await using home = await tempHome(
    fakeProviderYaml(fake.url, "tools: { policies: { build_tool: allow } }"),
  );
  const result = await runHob(["ask", "--json", "build things", "--home", home.home]);
  const reply = JSON.parse(result.stdout);
  const [existing, broken, greedy] = reply.tool_calls.map((c: { result: string }) => c.result);
  assertMatch(existing, /A tool named 'read_file' exists already/);
  assertMatch(broken, /The tool was not built: it does not load/);
  assertMatch(
    greedy,
    /asks for net access to any host, which the user's policy \(tools\.user_tools in hob\.yaml\) does not allow/,
  );
  assertEquals([...Deno.readDirSync(`${home.home}/tools`)].map((e) => e.name).sort(), [
    "roll_dice.ts",
    "word_count.ts",
  ], "only the examples copied at init");
  // What did not load was written and taken back: both are in the history.
  const history = await runHob(["memory", "history", "--json", "--home", home.home]);
  const built = JSON.parse(history.stdout).versions.filter((v: { path: string }) =>
    !["tools/roll_dice.ts", "tools/word_count.ts"].includes(v.path) && v.path.startsWith("tools/")
  ).map((v: { via: string; hash: string | null }) => `${v.via} ${v.hash ? "written" : "deleted"}`);
  assertEquals(
    built.filter((line: string) => line.endsWith("deleted")).length,
    2,
    built.join("; "),
  );
});

Deno.test("hob tool and hob approvals from the command line", async (t) => {
  await using fake = startFakeOpenAI();
  await using home = await tempHome(
    fakeProviderYaml(fake.url, "tools: { policies: { list_directory: ask } }"),
  );
  await t.step("tool list shows permissions and policies", async () => {
    const result = await runHob(["tool", "list", "--home", home.home]);
    assertEquals(result.code, 0, result.stderr);
    assertMatch(result.stdout, /read_file +allow +read: .*\/workspace/);
    assertMatch(result.stdout, /list_directory +ask /);
    assertMatch(result.stdout, /get_time +allow +no permissions/);
    // The policy column lines up, long names (search_conversations) included.
    const lines = result.stdout.trim().split("\n");
    const starts = new Set(lines.map((line) => /^\S+ +/.exec(line)![0].length));
    assertEquals(starts.size, 1, result.stdout);
    assert(lines.some((line) => /^\S{17,} /.test(line)), "a name past 16 characters");
  });
  await t.step("tool call runs a tool, --json gives the audit id", async () => {
    await Deno.writeTextFile(`${home.home}/workspace/n.txt`, "note");
    const plain = await runHob([
      "tool",
      "call",
      "read_file",
      "--args",
      '{"path":"n.txt"}',
      "--home",
      home.home,
    ]);
    assertEquals([plain.code, plain.stdout], [0, "note\n"]);
    const json = JSON.parse(
      (await runHob(["tool", "call", "get_time", "--json", "--home", home.home])).stdout,
    );
    assertEquals(json.is_error, false);
    const failed = await runHob([
      "tool",
      "call",
      "read_file",
      "--args",
      '{"path":"/etc/passwd"}',
      "--home",
      home.home,
    ]);
    assertEquals(failed.code, 1);
    assertMatch(failed.stderr, /^error: Path '\/etc\/passwd' is outside the allowed directories/);
    const bad = await runHob([
      "tool",
      "call",
      "read_file",
      "--args",
      "not json",
      "--home",
      home.home,
    ]);
    assertEquals([bad.code, bad.stderr], [
      2,
      'hob tool call: --args must be a JSON object, e.g. --args \'{"path": "notes.md"}\'\n',
    ]);
  });
  await t.step("a turn waits for 'hob approvals approve' from another process", async () => {
    fake.enqueue({ tool_calls: [{ name: "list_directory", arguments: {} }] }, { text: "Listed." });
    const asking = runHob(["ask", "list my workspace", "--home", home.home]);
    let id = "";
    for (let i = 0; i < 100 && !id; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const listed = JSON.parse(
        (await runHob(["approvals", "list", "--json", "--home", home.home])).stdout,
      );
      id = listed.approvals[0]?.id ?? "";
    }
    const approved = await runHob(["approvals", "approve", id, "--home", home.home]);
    assertEquals(approved.stdout, `Approved list_directory (${id}).\n`);
    const result = await asking;
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout, "Listed.\n");
    assertStringIncludes(result.stderr, `decide with: hob approvals approve ${id}`);
    const again = await runHob(["approvals", "deny", id, "--home", home.home]);
    assertEquals(again.code, 1);
    assertMatch(again.stderr, /is already approved/);
  });
  await t.step("at a terminal, an approval decided elsewhere ends the question", async () => {
    fake.enqueue({ tool_calls: [{ name: "list_directory", arguments: {} }] }, { text: "Listed." });
    const driver = new URL("../fakes/pty_drive.py", import.meta.url).pathname;
    // The question is asked at the terminal, and nobody types an answer there.
    const asking = new Deno.Command("python3", {
      args: [driver, "[]", ...hobArgv(["ask", "list my workspace", "--home", home.home])],
      env: cleanEnv(),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    let id = "";
    for (let i = 0; i < 300 && !id; i++) {
      const listed = await runHob(["approvals", "list", "--json", "--home", home.home]);
      id = JSON.parse(listed.stdout).approvals[0]?.id ?? "";
    }
    const approved = await runHob(["approvals", "approve", id, "--home", home.home]);
    assertEquals(approved.code, 0, approved.stderr);
    const output = await asking;
    const transcript = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 0, transcript);
    assertStringIncludes(transcript, "allow it? [y]es / [n]o / always / never:");
    assertStringIncludes(transcript, "approved elsewhere");
    assertStringIncludes(transcript, "Listed.");
  });
});

/** A page with enough text to be read as an article. */
const PAGE = `<html><head><title>Tides</title></head><body><article><h1>Tides at the harbour</h1>
<p>High water at 6:40. ${"The harbour wall keeps the swell out of the moorings. ".repeat(12)}</p>
</article></body></html>`;

Deno.test("fetch_url and a memory source read an https page under hob's own flags", async () => {
  // With NODE_EXTRA_CA_CERTS set (as on this machine, and in many a company), Deno's own
  // node:https agent asks sys access "ca" before it connects, which hob's flags do not grant:
  // every https page failed, fetched by a tool or added to memory. The audit of hob's
  // permissions (tests/helpers/permission_audit.ts) fails this test if anything asks.
  const dir = await Deno.makeTempDir({ prefix: "hob-https-" });
  try {
    if (!(await makeCertificates(dir, "localhost"))) return; // no openssl here: nothing to test
    await using site = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        onListen: () => {},
        cert: await Deno.readTextFile(`${dir}/localhost.pem`),
        key: await Deno.readTextFile(`${dir}/localhost.key`),
      },
      () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
    );
    const url = `https://localhost:${site.addr.port}/tides`;
    await using fake = startFakeOpenAI({
      replies: [
        { tool_calls: [{ id: "f1", name: "fetch_url", arguments: { url } }] },
        { text: "High water is at 6:40." },
      ],
    });
    await using home = await tempHome(
      fakeProviderYaml(
        fake.url,
        "memory: { embedder: none }\ntools: { web: { allow_private: true } }",
      ),
    );
    const ca = `${dir}/ca.pem`;
    await using hob = await startHob(home.home, [], {
      env: { DENO_CERT: ca, NODE_EXTRA_CA_CERTS: ca },
    });
    const reply = await (await hob.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "When is high water?" }),
    })).json();
    const [call] = reply.tool_calls as { name: string; result: string; is_error: boolean }[];
    assertEquals([call.name, call.is_error], ["fetch_url", false], call.result);
    assertStringIncludes(call.result, "High water at 6:40.");
    assertEquals(reply.content, "High water is at 6:40.");
    const added = await hob.fetch("/api/memory/sources", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: url }),
    });
    const text = await added.text();
    assertEquals(added.status, 201, text);
    assertMatch(text, /sources\//);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
