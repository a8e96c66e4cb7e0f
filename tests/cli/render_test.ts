/**
 * A reply's Markdown as `hob ask` shows it, streamed from a provider word by
 * word: drawn at a terminal (a pseudo-terminal, as a user has), in colour
 * unless NO_COLOR is set; written as the model wrote it when piped.
 */

import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { fakeProviderYaml, tempHome } from "../helpers/home.ts";
import { runHob, runHobInTerminal } from "../helpers/hob_process.ts";

const REPLY = `Here are **two** options:

| Option | Cost |
|:--|--:|
| Local *Ollama* | $0 |
| OpenAI | $12.50 |

- see [the docs](https://example.com/docs)`;

Deno.test("hob ask draws the reply's Markdown at a terminal and writes it as it is when piped", async (t) => {
  await using fake = startFakeOpenAI({ fallback: { text: REPLY } });
  await using home = await tempHome(fakeProviderYaml(fake.url, "memory: { embedder: none }"));
  const ask = ["ask", "Which options?", "--home", home.home];

  await t.step("at a terminal with NO_COLOR: the words, the columns, no marks", async () => {
    const { code, transcript } = await runHobInTerminal(ask);
    assertEquals(code, 0, transcript);
    const shown = transcript.replace(/\r\n/g, "\n");
    assertStringIncludes(shown, "Here are two options:\n");
    assertStringIncludes(
      shown,
      "Option       │   Cost\n─────────────┼───────\nLocal Ollama │     $0\nOpenAI       │ $12.50\n",
    );
    assertStringIncludes(shown, "• see the docs (https://example.com/docs)\n");
    // deno-lint-ignore no-control-regex
    assert(!/\*\*|\| Option|\x1b\[/.test(shown.split("(conversation")[0]), shown);
  });

  await t.step("at a terminal with colour: bold is bold", async () => {
    const { code, transcript } = await runHobInTerminal(ask, [], { env: { NO_COLOR: "" } });
    assertEquals(code, 0, transcript);
    assertStringIncludes(transcript, "Here are \x1b[1mtwo\x1b[22m options:");
    assert(!transcript.includes("**"), transcript);
  });

  await t.step("piped: the Markdown as the model wrote it, for scripts", async () => {
    const { code, stdout } = await runHob(ask);
    assertEquals(code, 0);
    assertEquals(stdout.trimEnd(), REPLY);
  });
});
