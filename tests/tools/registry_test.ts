import { z } from "zod";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { defineTool } from "../../src/tools/definition.ts";
import { getTime } from "../../src/tools/builtin/get_time.ts";
import { capOutput, createToolRegistry } from "../../src/tools/registry.ts";

const NOON = new Date("2026-11-22T12:00:00Z");
const context = { conversation_id: "c" };

Deno.test("createToolRegistry offers JSON schemas made from the tools' zod parameters", () => {
  const [spec] = createToolRegistry([getTime]).specs();
  assertEquals(spec.name, "get_time");
  assertEquals(spec.category, "time");
  assertEquals(spec.parameters.type, "object");
  assertEquals(Object.keys(spec.parameters.properties as object), ["timezone"]);
  assert(!("$schema" in spec.parameters));
});

Deno.test("createToolRegistry turns every failure into an is_error result", async (t) => {
  const slow = defineTool({
    name: "slow",
    description: "never finishes in time",
    category: "test",
    parameters: z.object({}),
    timeout_ms: 50,
    run: () => new Promise((resolve) => setTimeout(() => resolve("late"), 500)),
  });
  const throws = defineTool({
    name: "throws",
    description: "fails",
    category: "test",
    parameters: z.object({ n: z.number().int() }),
    run: () => {
      throw new Error("disk on fire");
    },
  });
  const loud = defineTool({
    name: "loud",
    description: "says a lot",
    category: "test",
    parameters: z.object({}),
    run: () => "a".repeat(6_000) + "b".repeat(6_000),
  });
  const registry = createToolRegistry([slow, throws, loud], { outputCapChars: 1_000 });

  await t.step("a timeout", async () => {
    const result = await registry.execute({ id: "1", name: "slow", arguments: "{}" }, context);
    assertEquals(result, { content: "slow timed out after 0.05 s", is_error: true });
  });
  await t.step("an exception", async () => {
    const result = await registry.execute(
      { id: "2", name: "throws", arguments: '{"n":1}' },
      context,
    );
    assertEquals(result, { content: "disk on fire", is_error: true });
  });
  await t.step("arguments of the wrong shape", async () => {
    const result = await registry.execute(
      { id: "3", name: "throws", arguments: '{"n":1.5}' },
      context,
    );
    assert(result.is_error);
    assertMatch(result.content, /^Invalid arguments for throws: n: /);
  });
  await t.step("arguments that are not an object", async () => {
    const result = await registry.execute({ id: "4", name: "throws", arguments: "[1]" }, context);
    assert(result.is_error);
    assertMatch(result.content, /^Invalid arguments for throws: arguments: /);
  });
  await t.step("empty arguments mean {}", async () => {
    const result = await registry.execute({ id: "5", name: "loud", arguments: "" }, context);
    assertEquals(result.is_error, false);
  });
  await t.step("output over the cap keeps head and tail", async () => {
    const result = await registry.execute({ id: "6", name: "loud", arguments: "{}" }, context);
    assert(result.content.length <= 1_000, String(result.content.length));
    assert(result.content.startsWith("aaa") && result.content.endsWith("bbb"));
    assertMatch(result.content, /\[… 11000 characters omitted …\]/);
  });
});

Deno.test("capOutput leaves short text alone", () => {
  assertEquals(capOutput("short", 10), "short");
  assertEquals(capOutput("x".repeat(10), 10), "x".repeat(10));
});

Deno.test("get_time tells the time in UTC and a named time zone", async (t) => {
  const registry = createToolRegistry([getTime], { now: () => NOON });
  await t.step("a named zone", async () => {
    const result = await registry.execute(
      { id: "1", name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' },
      context,
    );
    assertEquals(result.is_error, false);
    // Noon UTC is 21:00 in Tokyo; ICU decides the punctuation around it.
    assertMatch(
      result.content,
      /^Sunday.* 22 November 2026.* 21:00:00 .*\(Asia\/Tokyo\)\nUTC: 2026-11-22T12:00:00\.000Z$/,
    );
  });
  await t.step("an unknown zone is an error the model can fix", async () => {
    const result = await registry.execute(
      { id: "2", name: "get_time", arguments: '{"timezone":"Mars/Olympus"}' },
      context,
    );
    assertEquals(result, {
      content: "Unknown time zone 'Mars/Olympus'. Use an IANA name such as 'Europe/Paris'.",
      is_error: true,
    });
  });
});
