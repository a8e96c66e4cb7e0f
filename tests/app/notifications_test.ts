/** The notification actions over a real store in a temporary hob.db. */

import { ActionError } from "../../src/app/errors.ts";
import { createNotificationActions } from "../../src/app/notifications.ts";
import { SqliteNotifications } from "../../src/store/notifications.ts";
import { assertEquals, assertThrows } from "../helpers/assert.ts";
import { tempStore } from "../helpers/store.ts";

Deno.test("createNotificationActions lists, counts and marks read; a missing one is not_found", async (t) => {
  using temp = tempStore();
  const store = new SqliteNotifications(temp.db);
  const notifications = createNotificationActions(store);
  const first = store.add({ kind: "task", title: "done: Tidy", body: "All tidy." });
  store.add({ kind: "heartbeat", title: "Heartbeat", body: "The backup failed" });

  await t.step("newest first; `unread` as a query string spells it", () => {
    assertEquals(notifications.list().map((n) => n.title), ["Heartbeat", "done: Tidy"]);
    assertEquals(notifications.markRead({ id: first.id }), { marked: 1, unread: 1 });
    assertEquals(notifications.list({ unread: "1" }).map((n) => n.title), ["Heartbeat"]);
    assertEquals(notifications.list({ unread: "false" }).length, 2);
  });
  await t.step("all of them at once", () => {
    assertEquals(notifications.markRead({ id: "all" }), { marked: 1, unread: 0 });
    assertEquals(notifications.unreadCount(), 0);
  });
  await t.step("refusals", () => {
    const missing = assertThrows(() => notifications.markRead({ id: 99 }), ActionError);
    assertEquals((missing as ActionError).code, "not_found");
    const bad = assertThrows(() => notifications.list({ limit: 501 }), ActionError);
    assertEquals([(bad as ActionError).code, (bad as ActionError).field], ["invalid", "limit"]);
  });
});
