/**
 * The press-release skill every home starts with, run as `/press_release` in a real runtime
 * against a fake model: seven headlines, the model's pick of two, releases held to 600–750
 * words (a short one asked for again, a long one cut), JSON-LD, and six files in the workspace.
 */

import { collectReply } from "../../src/core/reply.ts";
import { convertDocx } from "../../src/memory/document_docx.ts";
import {
  countWords,
  MAX_WORDS,
  MIN_WORDS,
  parseBrief,
  trimToWords,
} from "../../skills/press_release.ts";
import { assert, assertEquals, assertMatch, assertThrows } from "../helpers/assert.ts";
import { fakeProviderYaml, tempRuntime } from "../helpers/home.ts";
import { type FakeReply, startFakeOpenAI } from "../fakes/openai_server.ts";

const HEADLINES = [
  "Acme Robotics Opens Ohio Plant",
  "Acme Robotics Brings 300 Jobs to Dayton",
  "Acme Robotics Builds Its Next Arm in Ohio",
  "Acme Robotics Expands Manufacturing Footprint",
  "Dayton Welcomes Acme Robotics",
  "Acme Robotics Invests $40 Million in Ohio Automation",
  "New Acme Robotics Plant Starts Production",
];

/** A release of `words` words in ten-word sentences, with the required phrase. */
function release(words: number): string {
  const sentence = "The new plant in Dayton builds arms for local factories.";
  const sentences = Array.from({ length: words / 10 - 1 }, () => sentence);
  return `DAYTON, Ohio — Every arm is made in Ohio from today. ${sentences.join(" ")}\n\n###`;
}

/** The fake model: answers each step of the skill by what its prompt asks. */
function pressDesk(): (body: Record<string, unknown>) => FakeReply {
  const drafts = new Map<string, number>();
  return (body) => {
    const messages = body.messages as { role: string; content: string }[];
    const prompt = messages.at(-1)!.content;
    if (prompt.includes("Write 7 different press-release headlines")) {
      return { text: HEADLINES.map((h, i) => `${i + 1}. "${h}"`).join("\n") };
    }
    if (prompt.includes("Which two are the best")) return { text: "I would pick 3 and 6." };
    const headline = /^Headline: (.+)$/m.exec(prompt)?.[1] ?? "";
    if (prompt.includes("Write the press release under this headline")) {
      const drafted = (drafts.get(headline) ?? 0) + 1;
      drafts.set(headline, drafted);
      // The first is too short once, then right; the second is always too long.
      if (headline === HEADLINES[2]) return { text: release(drafted === 1 ? 400 : 680) };
      return { text: release(900) };
    }
    if (prompt.includes("schema.org JSON-LD")) {
      if (headline === HEADLINES[2]) {
        return {
          text: '```json\n{"@context": "https://schema.org", "@type": "NewsArticle", ' +
            '"description": "Acme opens a plant", "keywords": "robotics, Ohio"}\n```',
        };
      }
      return { text: "Sorry, I cannot do JSON today." };
    }
    return { text: `unexpected prompt: ${prompt.slice(0, 80)}` };
  };
}

Deno.test("/press_release writes two releases of 600–750 words, with JSON-LD, as .txt, .docx and .json", async () => {
  await using fake = startFakeOpenAI({ respond: pressDesk() });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const reply = await collectReply(env.runtime.turn({
    message: "/press_release topic: Acme opens a robot plant in Dayton\n" +
      "company: Acme Robotics\nlsi_terms: automation, jobs\nrequired_phrase: made in Ohio",
  }));
  assertMatch(
    reply.content,
    /^Wrote 2 press releases for Acme Robotics in press_releases\/acme-robotics\/:/,
  );
  const prompts = fake.requests.map((r) =>
    (r.body.messages as { content: string }[]).at(-1)!.content
  );
  assert(
    prompts.some((p) => p.includes("it has 400 words, fewer than 600: expand it")),
    "the short release was asked for again, told its length",
  );

  const dir = `${env.home.home}/workspace/press_releases/acme-robotics`;
  const files = [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
  assertEquals(files.length, 6, files.join(", "));
  const date = new Date().toISOString().slice(0, 10);
  const stems = [...new Set(files.map((f) => f.replace(/\.(txt|docx|json)$/, "")))].sort();
  assertEquals(stems, [
    `${date}_acme-robotics-builds-its-next-arm-in-ohio`,
    `${date}_acme-robotics-invests-40-million-in-ohio-automation`,
  ]);
  for (const [stem, headline] of [[stems[0], HEADLINES[2]], [stems[1], HEADLINES[5]]]) {
    const text = await Deno.readTextFile(`${dir}/${stem}.txt`);
    const [first, ...rest] = text.split("\n\n");
    assertEquals(first, headline, "the model's pick, numbers and quotes stripped");
    const words = countWords(rest.join("\n\n"));
    assert(words >= MIN_WORDS && words <= MAX_WORDS, `${stem}: ${words} words`);
    assertMatch(text, /made in Ohio/);

    const schema = JSON.parse(await Deno.readTextFile(`${dir}/${stem}.json`));
    assertEquals(
      [schema["@context"], schema["@type"], schema.headline, schema.datePublished],
      ["https://schema.org", "NewsArticle", headline, date],
    );
    assertEquals(schema.publisher, { "@type": "Organization", name: "Acme Robotics" });
    assertEquals(schema.wordCount, words);

    const docx = await convertDocx({
      format: "docx",
      bytes: await Deno.readFile(`${dir}/${stem}.docx`),
      name: `${stem}.docx`,
      maxChars: 100_000,
    });
    assertMatch(docx.markdown, new RegExp(`^${headline.replace("$", "\\$")}`));
    assertMatch(docx.markdown, /The new plant in Dayton builds arms/);
  }
  // The model's own JSON-LD is kept where it parsed; hob's fields stand where it did not.
  const modelSchema = JSON.parse(await Deno.readTextFile(`${dir}/${stems[0]}.json`));
  assertEquals(modelSchema.keywords, "robotics, Ohio");
  const ownSchema = JSON.parse(await Deno.readTextFile(`${dir}/${stems[1]}.json`));
  assertEquals(ownSchema.keywords, undefined);
});

Deno.test("press_release reads its brief from lines or JSON, and says what is missing", () => {
  assertEquals(parseBrief("topic: A launch\nCompany Name: Beta Co\nlsi: x, y"), {
    topic: "A launch",
    company: "Beta Co",
    url: undefined,
    lsi_terms: "x, y",
    required_phrase: undefined,
  });
  assertEquals(
    parseBrief('{"topic": "A launch", "company": "Beta Co", "lsi_terms": ["x", "y"]}').lsi_terms,
    "x, y",
  );
  assertThrows(() => parseBrief("topic: only a topic"), Error, "A topic and a company are needed");
  assertThrows(() => parseBrief("{not json"), Error, "not valid JSON");
});

Deno.test("a release too long is cut at a sentence, keeping its closing mark", () => {
  const cut = trimToWords(release(900), MAX_WORDS);
  assertEquals(countWords(cut), 750);
  assertMatch(cut, /arms for local factories\.\n\n###$/);
  assertEquals(trimToWords(release(680), MAX_WORDS), release(680));
});

Deno.test("/press_release gives up on a release still too short after three tries, saving nothing", async () => {
  const desk = pressDesk();
  await using fake = startFakeOpenAI({
    respond: (body) => {
      const prompt = (body.messages as { content: string }[]).at(-1)!.content;
      return prompt.includes("Write the press release") ? { text: release(300) } : desk(body);
    },
  });
  await using env = await tempRuntime(fakeProviderYaml(fake.url));
  const reply = await collectReply(env.runtime.turn({
    message: "/press_release topic: A plant\ncompany: Acme Robotics",
  }));
  assertMatch(
    reply.error?.message ?? "",
    /After 3 tries the release for "Acme Robotics Builds Its Next Arm in Ohio" has 300 words, not 600–750/,
  );
  const drafts = fake.requests.filter((r) =>
    (r.body.messages as { content: string }[]).at(-1)!.content.includes("Write the press release")
  );
  assertEquals(drafts.length, 3);
  const dir = `${env.home.home}/workspace/press_releases/acme-robotics`;
  assertEquals(await Array.fromAsync(Deno.readDir(dir)).catch(() => []), []);
});
