/**
 * hob's entry point: hands the command line to src/cli and exits with its code.
 * A compiled hob's tool and document processes (`hob __sandbox`, `hob __documents`;
 * src/sandbox/process.ts) are dispatched first, before the CLI is loaded:
 * such a process needs none of it, and each one would otherwise load all of hob.
 */

import { DOCUMENTS_COMMAND, SANDBOX_COMMAND } from "./src/sandbox/launch.ts";

if (import.meta.main) {
  if (Deno.args[0] === SANDBOX_COMMAND) {
    const [{ runChild }, { TOOL_PROCESS }] = await Promise.all([
      import("./src/sandbox/child.ts"),
      import("./src/builtins/tool_process.ts"),
    ]);
    Deno.exit(await runChild(Deno.args.slice(1), TOOL_PROCESS));
  }
  if (Deno.args[0] === DOCUMENTS_COMMAND) {
    const [{ runChild }, { DOCUMENT_PROCESS }] = await Promise.all([
      import("./src/sandbox/child.ts"),
      import("./src/memory/documents_process.ts"),
    ]);
    Deno.exit(await runChild(Deno.args.slice(1), DOCUMENT_PROCESS));
  }
  // `deno task hob …` runs from the project folder; work where the user typed it.
  const invokedFrom = Deno.env.get("INIT_CWD");
  if (invokedFrom) {
    try {
      Deno.chdir(invokedFrom);
    } catch { /* stay put: paths are then relative to the project */ }
  }
  const { main } = await import("./src/cli/main.ts");
  Deno.exit(await main(Deno.args));
}
