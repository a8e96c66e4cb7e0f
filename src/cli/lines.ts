/**
 * Lines from stdin, read ahead and buffered, so a script piping several lines
 * into `hob chat` loses none (Deno's node:readline drops lines a pipe
 * delivers early).
 */

/**
 * Yields stdin's lines without their line endings, then ends at EOF.
 *
 * @example
 * ```ts
 * for await (const line of stdinLines()) console.log(line.toUpperCase());
 * ```
 */
export async function* stdinLines(
  readable: ReadableStream<Uint8Array> = Deno.stdin.readable,
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer) yield buffer;
}
