/**
 * The notification actions — list, count the unread, mark read — each
 * defined once: one zod schema for its input (the one the OpenAPI document
 * shows) and its refusals as {@linkcode ActionError}s. REST and the page are
 * translators over these. It knows the notification store, nothing of any
 * wire format.
 */

import { z } from "zod";
import type { Notification, SqliteNotifications } from "../store/notifications.ts";
import { ActionError, checkInput } from "./errors.ts";

/** Most notifications one listing returns. */
export const MAX_NOTIFICATION_LIST = 500;

/**
 * A listing, newest first. `unread` is a flag as a query string spells it
 * (`1`/`true`: only unread ones); `limit` may come as a query string's digits.
 */
export const listNotificationsInput = z.object({
  unread: z.enum(["0", "1", "true", "false"]).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_NOTIFICATION_LIST).default(50),
});
/** One notification by id, or `all` of them. */
export const markReadInput = z.object({
  id: z.union([z.literal("all"), z.number().int().min(1)]),
});

export type ListNotificationsInput = z.input<typeof listNotificationsInput>;
export type MarkReadInput = z.input<typeof markReadInput>;

/** The notification actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface NotificationActions {
  list(input?: ListNotificationsInput): Notification[];
  unreadCount(): number;
  /**
   * Marks one notification (or all) read: how many changed and how many are
   * left unread. `not_found` when there is no such notification.
   */
  markRead(input: MarkReadInput): { marked: number; unread: number };
}

/**
 * The notification actions over a store.
 *
 * @example
 * ```ts
 * const notifications = createNotificationActions(new SqliteNotifications(db));
 * notifications.markRead({ id: "all" }); // { marked: 3, unread: 0 }
 * ```
 */
export function createNotificationActions(notifications: SqliteNotifications): NotificationActions {
  return {
    list(input = {}) {
      const { unread, limit } = checkInput(listNotificationsInput, input);
      return notifications.list({ unread: unread === "1" || unread === "true", limit });
    },
    unreadCount: () => notifications.unreadCount(),
    markRead(input) {
      const { id } = checkInput(markReadInput, input);
      if (id !== "all" && !notifications.get(id)) {
        throw new ActionError("not_found", `There is no notification ${id}`, { field: "id" });
      }
      const marked = notifications.markRead(id);
      return { marked, unread: notifications.unreadCount() };
    },
  };
}
