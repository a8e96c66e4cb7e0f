/**
 * Writing to the terminal: plain text to stdout for results, progress and
 * diagnostics to stderr, colour only when stderr is a terminal and NO_COLOR is
 * unset.
 */

const encoder = new TextEncoder();

/** Writes `text` to stdout as is. */
export function out(text: string): void {
  writeAll(Deno.stdout, text);
}

/** Writes `text` to stderr as is. */
export function err(text: string): void {
  writeAll(Deno.stderr, text);
}

function writeAll(file: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  while (written < bytes.length) {
    written += file.writeSync(bytes.subarray(written));
  }
}

const colour = Deno.stderr.isTerminal() && !Deno.env.get("NO_COLOR");

/** Dims text meant for people (tool activity, hints) when stderr is a terminal. */
export function dim(text: string): string {
  return colour ? `\x1b[2m${text}\x1b[22m` : text;
}

/** Marks a failed check or an error in red on a terminal. */
export function red(text: string): string {
  return colour ? `\x1b[31m${text}\x1b[39m` : text;
}

/** Marks a passed check in green on a terminal. */
export function green(text: string): string {
  return colour ? `\x1b[32m${text}\x1b[39m` : text;
}

/** Prints a value as indented JSON on stdout. */
export function outJson(value: unknown): void {
  out(`${JSON.stringify(value, null, 2)}\n`);
}
