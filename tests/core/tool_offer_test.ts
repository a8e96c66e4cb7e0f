import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { estimateToolTokens } from "../../src/core/budget.ts";
import {
  answerOfTheOffer,
  CORE_TOOLS,
  FIND_TOOLS,
  offeredOf,
  offerSkills,
  ranked,
  selectTools,
  SKILL_TOOLS,
} from "../../src/core/tool_offer.ts";
import type { ChatMessage, ToolSpec } from "../../src/core/types.ts";
import { approvedText, untrustedSource } from "../../src/core/untrusted.ts";

function spec(name: string, description: string, category = "general"): ToolSpec {
  return { name, description, category, parameters: { type: "object", properties: {} } };
}

const TOOLS = [
  spec("get_time", "Get the current date and time.", "time"),
  spec("search_memory", "Search the user's memory.", "memory"),
  spec("remember_this", "Save a fact to memory.", "memory"),
  spec("read_file", "Read a text file from the workspace.", "files"),
  spec("write_file", "Write a text file in the workspace.", "files"),
  spec("read_csv", "Read a CSV file as a table.", "data"),
  spec("web_search", "Search the web for pages.", "web"),
  spec("email_file", "Send a file by email.", "email"),
];

const noHistory: ChatMessage[] = [];

Deno.test("selectTools offers the core tools, then those that share words with the message", async (t) => {
  await t.step("core tools whatever the message", () => {
    const offer = selectTools(TOOLS, { message: "hello", history: noHistory, budgetTokens: 1_000 });
    assertEquals([...offer.names].sort(), [...CORE_TOOLS].sort());
  });
  await t.step("a name beats a description", () => {
    assertEquals(ranked(TOOLS, "read the files")[0].tool.name, "read_file");
  });
  await t.step("plural and -ing forms match", () => {
    const offer = selectTools(TOOLS, {
      message: "emailing files",
      history: noHistory,
      budgetTokens: 1_000,
    });
    assert(offer.names.has("email_file") && offer.names.has("read_file"), [...offer.names].join());
  });
  await t.step("within the budget", () => {
    const core = estimateToolTokens(TOOLS.filter((tool) => CORE_TOOLS.includes(tool.name)));
    const one = estimateToolTokens([TOOLS[3]]);
    const offer = selectTools(TOOLS, {
      message: "read the file and write the file",
      history: noHistory,
      budgetTokens: core + one,
    });
    assertEquals(offer.names.size, CORE_TOOLS.length + 1);
  });
});

Deno.test("selectTools offers a tool marked always, whatever the message", () => {
  const finish = { ...spec("complete_task", "Declare the task done."), always: true };
  const offer = selectTools([...TOOLS, finish], {
    message: "hello",
    history: noHistory,
    budgetTokens: 0,
  });
  assert(offer.names.has("complete_task"));
});

Deno.test("selectTools keeps the tools the conversation called lately", () => {
  const called = (name: string): ChatMessage[] => [
    { role: "user", content: "do it" },
    { role: "assistant", content: "", tool_calls: [{ id: name, name, arguments: "{}" }] },
  ];
  const history = [
    ...called("web_search"),
    ...called("read_csv"),
    ...called("get_time"),
    ...called("get_time"),
  ];
  history.push({ role: "user", content: "thanks" });
  const offer = selectTools(TOOLS, { message: "thanks", history, budgetTokens: 0 });
  assert(offer.names.has("read_csv"), "three turns back");
  assert(!offer.names.has("web_search"), "four turns back");
});

Deno.test("answerOfTheOffer answers find_tools and refuses tools not offered", async (t) => {
  const offer = selectTools(TOOLS, { message: "hello", history: noHistory, budgetTokens: 1_000 });
  const call = (name: string, args: unknown) => ({
    id: "c",
    name,
    arguments: JSON.stringify(args),
  });
  await t.step("a tool hob has but did not offer is refused", () => {
    const result = answerOfTheOffer(TOOLS, offer, call("read_csv", { path: "a.csv" }));
    assertEquals(result?.is_error, true);
    assertMatch(result!.content, /^Not run: 'read_csv' was not offered/);
  });
  await t.step("offered and unknown tools go to the registry", () => {
    assertEquals(answerOfTheOffer(TOOLS, offer, call("get_time", {})), null);
    assertEquals(answerOfTheOffer(TOOLS, offer, call("no_such_tool", {})), null);
  });
  await t.step("find_tools offers what it finds for the rest of the turn", () => {
    const result = answerOfTheOffer(
      TOOLS,
      offer,
      call(FIND_TOOLS, { query: "open a spreadsheet CSV" }),
    );
    assertEquals(result?.is_error, false);
    assertMatch(result!.content, /- read_csv \(data\): Read a CSV file as a table\./);
    assert(offeredOf(TOOLS, offer).some((tool) => tool.name === "read_csv"));
    assertEquals(answerOfTheOffer(TOOLS, offer, call("read_csv", { path: "a.csv" })), null);
  });
  await t.step("with no match it names the tools not offered", () => {
    const result = answerOfTheOffer(TOOLS, offer, call(FIND_TOOLS, { query: "zzz" }));
    assertMatch(
      result!.content,
      /No tool matches 'zzz'\. Tools not offered yet: read_file, write_file, web_search, email_file\./,
    );
  });
  await t.step("without a query it says what it needs", () => {
    assertEquals(answerOfTheOffer(TOOLS, offer, call(FIND_TOOLS, {}))?.is_error, true);
  });
});

Deno.test("find_tools quotes a third party's description inside its label, which does not taint", () => {
  const mcp = spec(
    "fs__stat",
    approvedText("mcp:fs/stat description", "Tells a file's size.\nMore words."),
    "mcp:fs",
  );
  const tools = [...TOOLS, mcp];
  const offer = selectTools(tools, { message: "hello", history: noHistory, budgetTokens: 1_000 });
  // The label's markup is no word of the description: "source" finds nothing of it.
  assertEquals(ranked([mcp], "untrusted source approved description").length, 0);
  const result = answerOfTheOffer(tools, offer, {
    id: "c",
    name: FIND_TOOLS,
    arguments: JSON.stringify({ query: "size of a file" }),
  });
  assertMatch(
    result!.content,
    /- fs__stat \(mcp:fs\): <untrusted source="mcp:fs\/stat description" approved>\nTells a file's size\.\n<\/untrusted>/,
  );
  assertEquals(untrustedSource(result!.content), null);
});

Deno.test("offeredOf adds find_tools, and a tool built during the turn", () => {
  const offer = selectTools(TOOLS, { message: "hello", history: noHistory, budgetTokens: 1_000 });
  const built = spec("my_tool", "Built just now.");
  const names = offeredOf([...TOOLS, built], offer).map((tool) => tool.name);
  assertEquals(names.sort(), [...CORE_TOOLS, FIND_TOOLS, "my_tool"].sort());
});

Deno.test("relevant offers list the skills the message speaks of, within the budget, with the tools to use them", () => {
  const skills = [
    {
      name: "pdf-forms",
      description: approvedText("skill:pdf-forms description", "Fill in PDF forms."),
    },
    {
      name: "weekly-review",
      description: approvedText("skill:weekly-review description", "Reviews the week's log."),
    },
  ];
  const offer = selectTools(TOOLS, {
    message: "fill this form",
    history: noHistory,
    budgetTokens: 5_000,
  });
  const listed = offerSkills(skills, offer, TOOLS, {
    message: "fill this form",
    budgetTokens: 5_000,
  });
  assertEquals(listed.map((skill) => skill.name), ["pdf-forms"]);
  for (const name of SKILL_TOOLS) assert(offer.names.has(name), name);

  const none = selectTools(TOOLS, {
    message: "what time is it",
    history: noHistory,
    budgetTokens: 5_000,
  });
  assertEquals(
    offerSkills(skills, none, TOOLS, { message: "what time is it", budgetTokens: 5_000 }),
    [],
  );
  assert(!none.names.has("use_skill"), "no skill listed: no tools to use one");

  const tight = selectTools(TOOLS, {
    message: "fill this form",
    history: noHistory,
    budgetTokens: 1,
  });
  assertEquals(
    offerSkills(skills, tight, TOOLS, { message: "fill this form", budgetTokens: 1 }),
    [],
  );
});
