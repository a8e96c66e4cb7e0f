/**
 * marks.gen.ts is the schema's marks, as they are now: redact.ts hides what it
 * says without loading the schema, so a stale one would show a new secret.
 */

import { assertEquals } from "../helpers/assert.ts";
import { staticGraph } from "../helpers/graph.ts";
import { z } from "zod";
import { CONFIG_MARKS } from "../../src/config/marks.gen.ts";
import { REDACTED, redactWith } from "../../src/config/redact.ts";
import { configSchema, sensitivity } from "../../src/config/schema.ts";
import { marksOf } from "../../src/config/schema_marks.ts";
import { marksSource } from "../../scripts/config_marks.ts";

Deno.test("marks.gen.ts holds the schema's marks (else run `deno task gen:config`)", async () => {
  assertEquals(CONFIG_MARKS, marksOf(configSchema), "stale: run `deno task gen:config`");
  // The file itself, as the generator writes it, formatted.
  const file = await Deno.readTextFile(new URL("../../src/config/marks.gen.ts", import.meta.url));
  const formatted = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=ts", "-"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = formatted.stdin.getWriter();
  await writer.write(new TextEncoder().encode(marksSource()));
  await writer.close();
  assertEquals(file, new TextDecoder().decode((await formatted.output()).stdout));
});

Deno.test("marksOf follows objects, records, arrays and unions, hiding at least what each part would", () => {
  const secret = <T extends z.ZodType>(schema: T) => {
    sensitivity.add(schema, { sensitivity: "secret" });
    return schema;
  };
  const url = z.string();
  sensitivity.add(url, { sensitivity: "url" });
  const schema = z.object({
    plain: z.string(),
    servers: z.record(
      z.string(),
      z.union([
        z.object({ token: secret(z.string()).optional() }),
        z.object({ url, tags: z.array(z.object({ key: secret(z.string()) })) }),
      ]),
    ),
  });
  assertEquals(marksOf(schema), {
    servers: { "*": { token: "secret", url: "url", tags: { "[]": { key: "secret" } } } },
  });
  // Two marks at one place: hidden whole.
  assertEquals(
    marksOf(z.object({ a: z.union([z.object({ b: secret(z.string()) }), z.object({ b: url })]) })),
    { a: { b: "secret" } },
  );
  // A mark over a place wins over marks inside it; a plain part adds nothing.
  assertEquals(marksOf(z.union([secret(z.string()), z.number()])), "secret");
  assertEquals(
    marksOf(z.union([z.object({ a: z.object({ b: secret(z.string()) }) }), z.object({ a: url })])),
    { a: "url" },
  );
  // A key an object names gets the marks of a record beside it.
  const either = z.union([
    z.object({ known: z.object({ x: secret(z.string()) }) }),
    z.record(z.string(), z.object({ y: secret(z.string()) })),
  ]);
  assertEquals(marksOf(either), {
    known: { x: "secret", y: "secret" },
    "*": { y: "secret" },
  });
  const shown = redactWith(marksOf(either)!, { known: { x: "sk-1", y: "sk-2", z: "free" } });
  assertEquals(shown, { known: { x: REDACTED, y: REDACTED, z: "free" } });
});

Deno.test("redact.ts loads neither the schema nor zod", async () => {
  const graph = await staticGraph("src/config/redact.ts");
  assertEquals(graph.filter((module) => /^npm:|schema\.ts$/.test(module)), []);
});
