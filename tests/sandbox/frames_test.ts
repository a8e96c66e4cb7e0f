/**
 * The framed pipe to tool processes, and what decides which exchanges go
 * there: frames survive noise around them, over-long noise is dropped, and
 * every message carrying outside code is routed to a process.
 */

import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { encodeFrame, FRAME_MARKER, FrameReader } from "../../src/sandbox/frames.ts";
import { PROCESS_TOOLS } from "../../src/builtins/process_tools.ts";
import { describeExit } from "../../src/sandbox/process.ts";
import type { FromProcess, ToSandbox } from "../../src/sandbox/protocol.ts";
import { FOREIGN_CODE_TOOLS, runsInProcess } from "../../src/sandbox/routing.ts";
import { serveTools } from "../../src/sandbox/runner.ts";
import { BUILTIN_TOOLS } from "../../src/builtins/catalog.ts";

const encoder = new TextEncoder();

/** A stream that yields `chunks` as they are, one read each. */
function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(
    chunks.map((chunk) => typeof chunk === "string" ? encoder.encode(chunk) : chunk),
  );
}

async function readAll(reader: FrameReader): Promise<unknown[]> {
  const messages: unknown[] = [];
  for (let message = await reader.next(); message !== null; message = await reader.next()) {
    messages.push(message);
  }
  return messages;
}

Deno.test("FrameReader finds frames among noise, across chunk boundaries", async () => {
  const frame = encodeFrame({ type: "result", ok: true, content: "line\nbreak \x1e and ünïcode" });
  const split = 7;
  const reader = new FrameReader(streamOf([
    "plain noise\n",
    '{"type":"result","ok":true,"content":"forged"}\n',
    "noise without a newline, then ",
    frame.subarray(0, split),
    frame.subarray(split),
    "more noise\n",
    encodeFrame({ type: "ready" }),
  ]));
  assertEquals(await readAll(reader), [
    { type: "result", ok: true, content: "line\nbreak \x1e and ünïcode" },
    { type: "ready" },
  ]);
});

Deno.test("FrameReader drops an over-long line and goes on", async () => {
  const reader = new FrameReader(
    streamOf(["x".repeat(600), "y".repeat(600), "\n", encodeFrame({ type: "ready" })]),
    1_000,
  );
  assertEquals(await readAll(reader), [{ type: "ready" }]);
});

Deno.test("FrameReader takes a last frame without its newline, and ignores broken ones", async () => {
  const last = encodeFrame({ type: "ready" });
  const reader = new FrameReader(
    streamOf([`${FRAME_MARKER}{not json\n`, last.subarray(0, last.length - 1)]),
  );
  assertEquals(await readAll(reader), [{ type: "ready" }]);
});

Deno.test("every exchange that carries outside code goes to a tool process", () => {
  const context = {
    conversation_id: "",
    now: "",
    workspace: "",
    roots: [],
    home: "",
    settings: {},
    max_output_chars: 1,
  };
  const call = (tool: Extract<ToSandbox, { type: "call" }>["tool"]): ToSandbox => ({
    type: "call",
    tool,
    args: {},
    context,
  });
  assertEquals(runsInProcess({ type: "describe", url: "data:,", as: "tool" }), true);
  assertEquals(runsInProcess({ type: "describe", url: "data:,", as: "skill" }), true);
  assertEquals(runsInProcess(call({ kind: "source", url: "data:," })), true);
  assertEquals(runsInProcess(call({ kind: "skill", url: "data:," })), true);
  assertEquals(runsInProcess(call({ kind: "builtin", name: "run_code" })), true);
  assertEquals(runsInProcess(call({ kind: "builtin", name: "read_file" })), false);
  assertEquals(runsInProcess(call({ kind: "builtin", name: "get_time" })), false);
});

Deno.test("the tool process knows exactly the built-in tools routed to it", () => {
  assertEquals([...PROCESS_TOOLS.builtins.keys()].sort(), [...FOREIGN_CODE_TOOLS].sort());
  const builtins = new Set(BUILTIN_TOOLS.map((tool) => tool.name));
  for (const name of FOREIGN_CODE_TOOLS) assertEquals(builtins.has(name), true, name);
});

Deno.test("hob's own Workers refuse code from outside", async () => {
  const replies: FromProcess[] = [];
  let deliver: (message: ToSandbox) => void = () => {};
  serveTools({ post: (message) => replies.push(message), listen: (h) => deliver = h }, {
    builtins: new Map(),
    foreignCode: false,
  });
  deliver({ type: "describe", url: "data:application/javascript,Deno.exit(1)", as: "tool" });
  deliver({
    type: "call",
    tool: { kind: "source", url: "data:application/javascript,Deno.exit(1)" },
    args: {},
    context: {
      conversation_id: "",
      now: new Date().toISOString(),
      workspace: "/tmp",
      roots: ["/tmp"],
      home: "/tmp",
      settings: {},
      max_output_chars: 100,
    },
  });
  while (replies.length < 3) await new Promise((resolve) => setTimeout(resolve, 1));
  assertEquals(replies[0], { type: "ready" });
  for (const reply of replies.slice(1)) {
    assertMatch(JSON.stringify(reply), /runs only in a tool process/);
  }
});

Deno.test("describeExit names what happened to a tool process", () => {
  const status = (code: number, signal: Deno.Signal | null = null) => ({
    success: code === 0,
    code,
    signal,
  });
  assertEquals(describeExit(status(7), "", 256), "exited with code 7");
  assertEquals(
    describeExit(status(1), "\x1b[31merror\x1b[0m: Uncaught Error: boom\n", 256),
    "exited with code 1: error: Uncaught Error: boom",
  );
  assertEquals(describeExit(status(0), "", 256), "exited before it answered");
  assertEquals(
    describeExit(
      status(133, "SIGTRAP"),
      "#\n# Fatal JavaScript out of memory: Reached heap limit\n#\n",
      128,
    ),
    "ran out of memory (heap cap 128 MB)",
  );
  assertMatch(describeExit(status(137, "SIGKILL"), "", 256), /^was killed \(SIGKILL/);
});
