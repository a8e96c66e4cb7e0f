/**
 * Reading hob.db without opening the home: `hob cron list` with no server
 * running lists the jobs from a read-only handle, without the runtime (~100 ms
 * of modules). Only a database this build of hob wrote is read so; any other
 * (older, newer, locked, missing) answers nothing, and the command opens the
 * home as before, which migrates it or says what is wrong.
 */

import { DatabaseSync } from "node:sqlite";
import { type JobView, SqliteJobs } from "./jobs.ts";
import { SCHEMA_VERSION, userVersion } from "./migrations.ts";

/**
 * The jobs as the owner sees them (what `SqliteJobs.views` gives the app's
 * list action), or undefined when the database at `path` cannot be read so.
 *
 * @example
 * ```ts
 * readJobViews(`${home}/hob.db`)?.map((job) => job.name); // ["standup"]
 * ```
 */
export function readJobViews(path: string): JobView[] | undefined {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    if (userVersion(db) !== SCHEMA_VERSION) return undefined;
    return new SqliteJobs(db).views();
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
