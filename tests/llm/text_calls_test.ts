import { assertEquals } from "../helpers/assert.ts";
import { parseTextCalls, type TextCalls } from "../../src/llm/text_calls.ts";

const offered = new Set(["get_time", "read_file"]);
const utc = { name: "get_time", arguments: '{"timezone":"UTC"}' };

function parse(reply: string, quoted: string[] = []): TextCalls | null {
  return parseTextCalls(reply, { offered, quoted });
}

Deno.test("parseTextCalls reads each family's text form", async (t) => {
  const forms: [string, string, TextCalls][] = [
    [
      "Hermes/Qwen",
      '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>',
      {
        visible: "",
        calls: [utc],
        form: "hermes",
      },
    ],
    [
      "Hermes with prose before and two calls, the last unclosed",
      'Let me look.\n<tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}</tool_call>\n<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}',
      {
        visible: "Let me look.",
        calls: [utc, { name: "read_file", arguments: '{"path":"a.txt"}' }],
        form: "hermes",
      },
    ],
    ["Llama 3.x JSON, the whole reply", '{"name": "get_time", "parameters": {"timezone": "UTC"}}', {
      visible: "",
      calls: [utc],
      form: "json",
    }],
    [
      "Llama python_tag JSON",
      '<|python_tag|>{"name": "get_time", "parameters": {"timezone": "UTC"}}<|eom_id|>',
      {
        visible: "",
        calls: [utc],
        form: "python_tag",
      },
    ],
    ["Llama python_tag call", '<|python_tag|>get_time.call(timezone="UTC")', {
      visible: "",
      calls: [utc],
      form: "python_tag",
    }],
    ["Mistral v0.3", '[TOOL_CALLS] [{"name": "get_time", "arguments": {"timezone": "UTC"}}]', {
      visible: "",
      calls: [utc],
      form: "mistral",
    }],
    ["Mistral v11", '[TOOL_CALLS]get_time[ARGS]{"timezone": "UTC"}', {
      visible: "",
      calls: [utc],
      form: "mistral",
    }],
    [
      "a fenced JSON block",
      '```json\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n```',
      {
        visible: "",
        calls: [utc],
        form: "fenced_json",
      },
    ],
  ];
  for (const [name, reply, expected] of forms) {
    await t.step(name, () => assertEquals(parse(reply), expected));
  }
});

Deno.test("parseTextCalls repairs near-JSON arguments", async (t) => {
  await t.step("trailing commas, single quotes, unquoted keys", () => {
    const reply = "<tool_call>{'name': 'get_time', arguments: {timezone: 'UTC',},}</tool_call>";
    assertEquals(parse(reply)?.calls, [utc]);
  });
  await t.step("arguments given as a string of JSON", () => {
    const reply =
      '<tool_call>{"name": "get_time", "arguments": "{\\"timezone\\": \\"UTC\\"}"}</tool_call>';
    assertEquals(parse(reply)?.calls, [utc]);
  });
  await t.step("arguments past repair are passed on as written, for the registry to refuse", () => {
    assertEquals(parse("[TOOL_CALLS]get_time[ARGS]timezone is UTC")?.calls, [
      { name: "get_time", arguments: "timezone is UTC" },
    ]);
  });
});

Deno.test("parseTextCalls takes no quoted call text for a call", async (t) => {
  const call = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
  const refused: [string, string, string[]?][] = [
    ["inside a sentence", `The file says ${call} which looks like an instruction.`],
    ["in a blockquote", `The note reads:\n\n> ${call}`],
    ["in a code fence", `Here is the markup:\n\n\`\`\`\n${call}\n\`\`\``],
    ["followed by more prose", `The document ends with:\n${call}\nI did not run it.`],
    ["repeated from a tool result", `The file says:\n${call}`, [`notes:\n${call}\n`]],
    [
      "repeated from a tool result, the JSON alone",
      `<tool_call>{"name":"get_time","arguments":{}}</tool_call>`,
      [
        'It contains { "name": "get_time", "arguments": {} } somewhere',
      ],
    ],
    ["unmarked JSON among prose", 'Use this: {"name": "get_time", "parameters": {}}'],
    ["unmarked JSON naming a tool not offered", '{"name": "Ada", "parameters": {"age": 36}}'],
    [
      "unmarked JSON with keys a call does not have",
      '{"name": "get_time", "parameters": {}, "note": "x"}',
    ],
    ["a fence in another language", '```python\n{"name": "get_time", "arguments": {}}\n```'],
  ];
  for (const [name, reply, quoted] of refused) {
    await t.step(name, () => assertEquals(parse(reply, quoted), null));
  }
  await t.step(
    "the same call, not quoted, counts",
    () => assertEquals(parse(call)?.calls.length, 1),
  );
});

Deno.test("parseTextCalls passes on a marked call of a tool not offered, for the agent to refuse", () => {
  const reply = '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>';
  assertEquals(parse(reply)?.calls, [{ name: "delete_everything", arguments: "{}" }]);
});
