import { LineQueue, stdinLines } from "../../src/cli/stdin_lines.ts";
import { assertEquals, assertRejects } from "../helpers/assert.ts";

/** A stream whose chunks the test pushes when it likes. */
function typed(): { stream: ReadableStream<Uint8Array>; type(text: string): void; end(): void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => controller = c });
  return {
    stream,
    type: (text) => controller.enqueue(new TextEncoder().encode(text)),
    end: () => controller.close(),
  };
}

Deno.test("LineQueue gives a line a reader gave up on to the next reader", async () => {
  const input = typed();
  const lines = new LineQueue(stdinLines(input.stream));
  const gaveUp = new AbortController();
  const waiting = lines.next(gaveUp.signal);
  gaveUp.abort(new Error("decided elsewhere"));
  assertEquals((await assertRejects(() => waiting)).message, "decided elsewhere");
  input.type("hello\nsecond\n");
  assertEquals(await lines.next(), { done: false, value: "hello" });
  assertEquals(await lines.next(), { done: false, value: "second" });
  input.type("last");
  input.end();
  assertEquals(await lines.next(), { done: false, value: "last" });
  assertEquals(await lines.next(), { done: true, value: undefined });
});

Deno.test("LineQueue refuses at once when the signal is already aborted, and loses nothing", async () => {
  const input = typed();
  const lines = new LineQueue(stdinLines(input.stream));
  await assertRejects(() => lines.next(AbortSignal.abort()));
  input.type("kept\n");
  input.end();
  assertEquals(await lines.next(), { done: false, value: "kept" });
});
