/**
 * hob's entry point: hands the command line to src/cli and exits with its code.
 */

import { main } from "./src/cli/main.ts";

if (import.meta.main) {
  // `deno task hob …` runs from the project folder; work where the user typed it.
  const invokedFrom = Deno.env.get("INIT_CWD");
  if (invokedFrom) {
    try {
      Deno.chdir(invokedFrom);
    } catch { /* stay put: paths are then relative to the project */ }
  }
  Deno.exit(await main(Deno.args));
}
