/**
 * Prints what hob is up to: tasks, schedules, unread notifications and approvals waiting for
 * you. With `--add SCHEDULE` it instead schedules hob to write you a digest itself (a job named
 * "daily-digest"; run again to change its schedule).
 *
 *   deno run --allow-net=127.0.0.1:8484 --allow-import=127.0.0.1:8484 examples/daily_digest.ts \
 *     --token "$(cat ~/.hob/token)" [--add "0 18 * * 1-5"]
 *
 * Without --token it reads HOB_TOKEN, if also run with --allow-env=HOB_TOKEN.
 */

// A script imports hob's client from hob itself, by its URL.
// deno-lint-ignore no-import-prefix
import { connect, HobError, takeToken } from "http://127.0.0.1:8484/client.ts";

const JOB = "daily-digest";
const PROMPT = "Write my daily digest: what today's log says, open and failed tasks, unread " +
  "notifications. Five lines at most.";

const { token, args } = takeToken(Deno.args);
const hob = connect({ token });

try {
  const at = args.indexOf("--add");
  if (at >= 0) {
    const schedule = args[at + 1];
    if (!schedule) {
      console.error('usage: daily_digest.ts [--token TOKEN] [--add "0 18 * * *"]');
      Deno.exit(2);
    }
    const existing = (await hob.schedules.list()).find((job) => job.name === JOB);
    const job = existing
      ? await hob.schedules.update(existing.id, { schedule, prompt: PROMPT })
      : await hob.schedules.add({ name: JOB, schedule, prompt: PROMPT });
    console.log(
      `${
        existing ? "Rescheduled" : "Scheduled"
      } ${JOB} (${job.schedule}, ${job.timezone}); next run ${job.next_run}.`,
    );
  } else {
    await digest();
  }
} catch (error) {
  if (!(error instanceof HobError)) throw error;
  console.error(`daily_digest: ${error.message}`);
  Deno.exit(1);
}

async function digest() {
  const [health, tasks, schedules, notifications, approvals] = await Promise.all([
    hob.health(),
    hob.tasks.list({ limit: 50 }),
    hob.schedules.list(),
    hob.notifications.list({ unread: true }),
    hob.approvals.list(),
  ]);
  console.log(`hob ${health.version} at ${hob.url}\n`);

  const open = tasks.filter((task) => !["complete", "cancelled"].includes(task.status));
  console.log(`Tasks (${open.length} open)`);
  for (const task of open) console.log(`  #${task.id} [${task.status}] ${task.title}`);

  console.log(`\nSchedules (${schedules.length})`);
  for (const job of schedules) {
    const state = job.enabled ? `next ${job.next_run ?? "never"}` : "disabled";
    const last = job.last_status ? `, last ${job.last_status}` : "";
    console.log(`  ${job.name}: ${job.schedule} — ${state}${last}`);
  }

  console.log(`\nUnread notifications (${notifications.length})`);
  for (const note of notifications) console.log(`  ${note.title}: ${note.body.split("\n")[0]}`);

  console.log(`\nWaiting for your approval (${approvals.length})`);
  for (const approval of approvals) {
    console.log(`  ${approval.tool}: ${approval.reason} — hob approvals approve ${approval.id}`);
  }
}
