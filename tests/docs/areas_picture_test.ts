/** The picture of the areas in docs/architecture.md is the one its table draws. */

import { assertEquals } from "../helpers/assert.ts";
import {
  ARCHITECTURE_DOC,
  areaMap,
  areasPicture,
  withPicture,
} from "../../scripts/areas_picture.ts";

Deno.test("docs/architecture.md's picture of the areas is drawn from its table", async () => {
  const doc = await Deno.readTextFile(ARCHITECTURE_DOC);
  assertEquals(doc, withPicture(doc), "run `deno task docs:areas`");
});

Deno.test("the picture leaves out an arrow a longer path implies, and keeps an area alone", () => {
  const map = areaMap(
    [
      "| `core` | the loop | — |",
      "| `store` | SQLite | `core` |",
      "| `app` | actions | `core`, `store` |",
      "| `version` | the version | — |",
    ].join("\n"),
  );
  assertEquals(
    areasPicture(map),
    "```mermaid\nflowchart TD\n  app --> store\n  store --> core\n  version\n```",
  );
});
