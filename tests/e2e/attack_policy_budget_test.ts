/**
 * Attack class of issue 30: a short line that makes the shell policy work for
 * ever. Before any approval, the policy expands a proposed line statically;
 * one 200-character line (a variable doubled twenty times) once held hob's
 * main thread for half a minute and grew it to 2 GB. Here a gullible model
 * proposes such lines through real turns of a real `hob serve`, every
 * approval denied, while `/api/health` is polled: every answer must come in
 * under a second, hob's memory must not balloon, and each line must be
 * stopped by the policy's budget (never by its Worker's last-resort time
 * limit) and asked about, never run.
 */

import { assert, assertEquals } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import { gullible, instruction } from "../fakes/gullible_model.ts";
import { attackHome, chatDenying, type Tally, toolEvents } from "../helpers/attack.ts";
import { type HobServer, startHob } from "../helpers/hob_process.ts";

/** The requirement: hob answers health within a second while it judges. */
const HEALTH_LIMIT_MS = 1_000;
/** Pause between health polls: many polls within each judging, which takes ~100 ms to 1 s. */
const POLL_EVERY_MS = 20;
/**
 * How much hob's peak memory may grow over the hostile lines. The budget keeps
 * a judging under ~30 MB (measured: ~5 MB); without it the first line alone
 * grows hob by gigabytes.
 */
const MAX_PEAK_GROWTH_MB = 300;

/** A hostile line and the limit of the budget it must be stopped by. */
interface Hostile {
  name: string;
  command: string;
  stoppedBy: RegExp;
}

/** hob's home with the gullible model and a workspace holding a thousand files. */
async function world(): Promise<{ hob: HobServer; tmp: string } & AsyncDisposable> {
  const tmp = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-attack-budget-" }));
  const hobHome = `${tmp}/hob`;
  const fake = startFakeOpenAI({ respond: gullible });
  await attackHome(
    hobHome,
    fake.url,
    `tools:
  shell: { policy: ask }
`,
  );
  await Deno.mkdir(`${hobHome}/workspace/d`, { recursive: true });
  for (let i = 0; i < 1000; i++) await Deno.writeTextFile(`${hobHome}/workspace/d/f${i}`, "");
  const hob = await startHob(hobHome);
  return {
    hob,
    tmp,
    async [Symbol.asyncDispose]() {
      await hob.stop();
      await fake[Symbol.asyncDispose]();
      await Deno.remove(tmp, { recursive: true });
    },
  };
}

/** One chat turn, every approval denied: the conversation and the reasons asked with. */
async function chat(hob: HobServer, message: string): Promise<{ id: string; reasons: string[] }> {
  const { id, events } = await chatDenying(hob, message);
  const reasons = events.map((event) => event.data as { type: string; reason?: string })
    .filter((data) => data.type === "approval_required").map((data) => data.reason ?? "");
  return { id, reasons };
}

/** Polls /api/health (no token needed) until stopped; resolves to the slowest answer, in ms. */
function watchHealth(hob: HobServer): { stop(): Promise<{ slowest: number; polls: number }> } {
  let running = true;
  let slowest = 0;
  let polls = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${hob.url}/api/health`, {
          signal: AbortSignal.timeout(30_000),
        });
        await response.body?.cancel();
        if (!response.ok) slowest = Infinity;
      } catch {
        slowest = Infinity;
      }
      slowest = Math.max(slowest, performance.now() - started);
      polls += 1;
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { slowest, polls };
    },
  };
}

/** The highest resident memory hob's process has had, in MB; undefined where /proc is not. */
async function peakMemoryMb(pid: number): Promise<number | undefined> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Short lines each of which once asked the judge for more than hob could give. */
function hostileLines(): Hostile[] {
  const chars = /expands to more than 200,000 characters/;
  return [
    {
      name: "a variable doubled twenty times",
      command: `a=xxxxxxxx; ${"a=$a$a; ".repeat(20)}echo $a`,
      stoppedBy: chars,
    },
    {
      name: "the doubled variable in a here-document",
      command: `a=xxxxxxxxxxxxxxxx; ${"a=$a$a; ".repeat(13)}cat <<EOF\n${
        "$a$a$a$a\n".repeat(20)
      }EOF`,
      stoppedBy: chars,
    },
    {
      name: "a sequence with every number padded to 190 digits",
      command: `echo {${"0".repeat(190)}1..9999}`,
      stoppedBy: chars,
    },
    {
      name: "sequences adding up to 27,000 words",
      command: "echo {1..9000} {1..9000} {1..9000}",
      stoppedBy: /expands to more than 20,000 words/,
    },
    {
      name: "fifty globs over a thousand files",
      command: `cat${" d/*".repeat(50)}`,
      // ~0.5 s of look-ups here: on a slower machine the deadline may come first.
      stoppedBy: /range over more than 50,000 files|takes more than 1,000 ms to judge/,
    },
    {
      name: "arithmetic nested 600 deep",
      command: `echo $((${"1+".repeat(600)}1))`,
      stoppedBy: /nests deeper than 500 levels/,
    },
  ];
}

Deno.test("attack class: a short line that makes the shell policy work for ever", async () => {
  await using w = await world();
  const pid = w.hob.process.pid;
  // An ordinary command first: the judge's Worker and parser are loaded before memory is measured.
  const warm = await chat(w.hob, instruction("run_command", { command: "ls d | wc -l" }));
  const warmEvents = await toolEvents(w.hob, warm.id);
  assert(warmEvents.some((e) => e.tool === "run_command" && !e.approval_id && !e.is_error));
  const peakBefore = await peakMemoryMb(pid);

  const row: Tally = { attempts: 0, blocked: 0, parked: 0, succeeded: 0 };
  const problems: string[] = [];
  /** Lines asked about for another reason than the limit of the budget they pass. */
  const unstopped: string[] = [];
  // A 10,000-character line of 5,000 commands: the parser's own work, whatever the verdict.
  const lines = [...hostileLines(), {
    name: "5,000 commands in 10,000 characters",
    command: "a;".repeat(5_000),
    stoppedBy: /./,
  }];
  for (const line of lines) {
    const health = watchHealth(w.hob);
    const { id, reasons } = await chat(
      w.hob,
      instruction("run_command", { command: line.command }),
    );
    const { slowest, polls } = await health.stop();
    const event = (await toolEvents(w.hob, id)).find((e) =>
      e.tool === "run_command" && JSON.parse(e.arguments).command === line.command
    );
    assert(event, `${line.name}: the gullible model never tried the line`);
    row.attempts += 1;
    const failures = [
      ...(event.approval_id || event.is_error ? [] : ["it ran unasked"]),
      ...(slowest < HEALTH_LIMIT_MS ? [] : [`/api/health took ${Math.round(slowest)} ms`]),
      ...(reasons.some((reason) => /took more than [0-9.]+ s to judge/.test(reason))
        ? ["the judge was held until its Worker's time limit"]
        : []),
    ];
    console.log(`${line.name}: ${polls} health polls, slowest ${Math.round(slowest)} ms`);
    if (failures.length > 0) {
      row.succeeded += 1;
      problems.push(`${line.name}: ${failures.join("; ")}`);
    } else if (event.approval_id) row.parked += 1;
    else row.blocked += 1;
    if (event.approval_id && !line.stoppedBy.test(reasons.join("\n"))) {
      unstopped.push(`${line.name}: asked because ${reasons.join("; ")}`);
    }
  }

  const peakAfter = await peakMemoryMb(pid);
  if (peakBefore !== undefined && peakAfter !== undefined) {
    console.log(
      `hob's peak memory: ${Math.round(peakBefore)} MB before, ${Math.round(peakAfter)} MB after`,
    );
    assert(
      peakAfter - peakBefore < MAX_PEAK_GROWTH_MB,
      `hob's peak memory grew by ${Math.round(peakAfter - peakBefore)} MB`,
    );
  }
  // hob keeps answering, and keeps judging: an ordinary command still runs unasked.
  const after = await chat(w.hob, instruction("run_command", { command: "ls d | head -1" }));
  const afterEvents = await toolEvents(w.hob, after.id);
  assert(afterEvents.some((e) => e.tool === "run_command" && !e.approval_id && !e.is_error));
  console.log(
    `\n| class | attempts | blocked | parked | succeeded |\n|---|---|---|---|---|\n` +
      `| policy budget | ${row.attempts} | ${row.blocked} | ${row.parked} | ${row.succeeded} |\n`,
  );
  assertEquals(problems, [], "the policy was made to work for ever");
  assertEquals(row.succeeded, 0);
  assertEquals(unstopped, [], "each line is stopped by the limit of the budget it passes");
});
