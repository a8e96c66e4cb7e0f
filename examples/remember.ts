/**
 * Writes a fact to hob's memory, then searches for it — by default with the fact's own words,
 * or with a question given as the second argument.
 *
 *   deno run --allow-net=127.0.0.1:8484 --allow-import=127.0.0.1:8484 examples/remember.ts \
 *     --token "$(cat ~/.hob/token)" "The boiler service is due in March." "when is the boiler due"
 *
 * Without --token it reads HOB_TOKEN, if also run with --allow-env=HOB_TOKEN.
 */

// A script imports hob's client from hob itself, by its URL.
// deno-lint-ignore no-import-prefix
import { connect, HobError, takeToken } from "http://127.0.0.1:8484/client.ts";

const { token, args } = takeToken(Deno.args);
const [fact, question = fact] = args;
if (!fact) {
  console.error('usage: remember.ts [--token TOKEN] "a fact" ["a question"]');
  Deno.exit(2);
}

const hob = connect({ token });
try {
  const path = await hob.memory.remember(fact);
  console.log(`Remembered in memory/${path}.`);
  const hits = await hob.memory.search(question, { limit: 3 });
  if (hits.length === 0) console.log(`Nothing in memory matches "${question}".`);
  for (const hit of hits) {
    console.log(
      `${hit.path}:${hit.start_line}-${hit.end_line}  ${hit.snippet.replace(/\s+/g, " ")}`,
    );
  }
} catch (error) {
  if (!(error instanceof HobError)) throw error;
  console.error(`remember: ${error.message}`);
  Deno.exit(1);
}
