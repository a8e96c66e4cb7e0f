/**
 * What opening the home does not do: ask Intl for the machine's time zone
 * (its first `Intl.DateTimeFormat` costs a process ~15–25 ms, on the way to
 * every command and to `hob serve`'s first answer) when no job and no active
 * hours need one. A job that needs it still gets the machine's zone.
 */

import { assertEquals } from "../helpers/assert.ts";
import { tempHome } from "../helpers/home.ts";
import { runHobCode } from "../helpers/hob_process.ts";

const RUNTIME = new URL("../../src/runtime/runtime.ts", import.meta.url).href;

/** Opens a runtime on `home` in a fresh process whose Intl.DateTimeFormat throws; then runs `after`. */
async function openWithoutIntl(home: string, after = ""): Promise<string> {
  const code = `
    const real = Intl.DateTimeFormat;
    let allowed = false;
    Intl.DateTimeFormat = new Proxy(real, {
      construct(target, args) {
        if (!allowed) throw new Error("Intl.DateTimeFormat used while opening");
        return Reflect.construct(target, args);
      },
      apply(target, self, args) {
        if (!allowed) throw new Error("Intl.DateTimeFormat used while opening");
        return Reflect.apply(target, self, args);
      },
    });
    const { openRuntime } = await import(${JSON.stringify(RUNTIME)});
    const runtime = await openRuntime({ home: ${JSON.stringify(home)}, env: {} });
    try {
      allowed = true;
      ${after}
      console.log("opened");
    } finally {
      await runtime.close();
    }`;
  const { code: exit, stdout, stderr } = await runHobCode(code, { env: { TZ: "Asia/Tokyo" } });
  assertEquals(exit, 0, stderr);
  return stdout;
}

Deno.test("opening the home asks Intl nothing; a job without a zone still gets the machine's", async () => {
  await using home = await tempHome(
    "memory: { embedder: none }\nheartbeat: { enabled: true }\ntasks: { workers: 0 }\n",
  );
  assertEquals(await openWithoutIntl(home.home), "opened\n");
  const added = await openWithoutIntl(
    home.home,
    `const job = runtime.app.schedules.add({ name: "plan", prompt: "Plan", schedule: "0 9 * * *" });
     console.log(job.timezone);`,
  );
  assertEquals(added, "Asia/Tokyo\nopened\n");
});
