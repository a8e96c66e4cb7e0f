/** Waiting on a channel of a running `hob serve`, from outside: what its hob.db and API say. */

import { DatabaseSync } from "node:sqlite";
import type { HobServer } from "./hob_process.ts";
import { eventually, until } from "./until.ts";

/**
 * Waits until `channel` of the hob serving `home` has read once: what came
 * before that first read is history, never answered (hob.db holds its cursor
 * from then on).
 *
 * @example
 * ```ts
 * await untilReading(home.home, "email");
 * ```
 */
export async function untilReading(home: string, channel: string): Promise<void> {
  await until(
    () => {
      try {
        const db = new DatabaseSync(`${home}/hob.db`, { readOnly: true });
        try {
          return Boolean(
            db.prepare("SELECT 1 FROM kv WHERE key = ?").get(`channel.cursor.${channel}`),
          );
        } finally {
          db.close();
        }
      } catch {
        return false;
      }
    },
    `${channel} to read for the first time`,
    30_000,
    50,
  );
}

/** A channel's state as `/api/channels` shows it. */
export interface ShownChannel {
  name: string;
  account: string | null;
  state: string;
  restarts: number;
  ignored: number;
  last_error: string | null;
}

/** `channel` as the running hob's `/api/channels` shows it now. */
export async function shownChannel(hob: HobServer, channel: string): Promise<ShownChannel> {
  const listed = await (await hob.fetch("/api/channels")).json();
  const found = (listed.channels as ShownChannel[]).find((each) => each.name === channel);
  if (!found) throw new Error(`hob shows no channel '${channel}': ${JSON.stringify(listed)}`);
  return found;
}

/** Waits until the running hob shows `channel` connected; returns what it shows. */
export async function untilConnected(hob: HobServer, channel: string): Promise<ShownChannel> {
  let shown: ShownChannel | undefined;
  try {
    await eventually(
      async () => {
        shown = await shownChannel(hob, channel);
        return shown.state === "connected" && shown.account !== null;
      },
      `${channel} to be connected`,
      30_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${JSON.stringify(shown)}\n${hob.stderr()}`);
  }
  return shown!;
}
