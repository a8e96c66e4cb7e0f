/**
 * The channel routes: the channels' state, the strangers who wrote without
 * being allowed, and a test message to the owner. Mounted under /api, behind
 * the token; translators over the app's channel actions and the hub.
 */

import { Hono } from "hono";
import { type ForgetStrangerInput, listStrangersInput } from "../app/channels.ts";
import type { Hob } from "../app/hob.ts";
import { act, actAsync } from "./errors.ts";
import type { RouteDoc } from "./openapi.ts";
import { queryAction } from "./validate.ts";

/** The routes below as the OpenAPI document lists them. */
export const channelRouteDocs: RouteDoc[] = [
  {
    method: "get",
    path: "/api/channels",
    tag: "channels",
    summary: "The channels of hob.yaml and how each is doing",
    response: { description: "`{channels}`: state, account, last in and out, last error" },
  },
  {
    method: "get",
    path: "/api/channels/pending",
    tag: "channels",
    summary: "Strangers who wrote without being in allow_from, latest first",
    query: listStrangersInput,
    response: { description: "`{strangers}`, each with the id `allow_from` takes" },
  },
  {
    method: "delete",
    path: "/api/channels/pending/{channel}/{sender_id}",
    tag: "channels",
    summary: "Forget a stranger",
    response: { status: 204, description: "Forgotten" },
  },
  {
    method: "post",
    path: "/api/channels/{channel}/test",
    tag: "channels",
    summary: "Send a test message to the owner (the first of allow_from)",
    response: { description: "`{sent: true}`" },
  },
];

/**
 * The channel routes.
 *
 * @example
 * ```ts
 * api.route("/api/channels", channelRoutes(hob));
 * ```
 */
export function channelRoutes(hob: Hob): Hono {
  const routes = new Hono();
  routes.get("/", (c) => c.json({ channels: hob.app.channels.states() }));
  routes.get("/pending", async (c) => {
    const strangers = await queryAction(
      c,
      listStrangersInput,
      (query) => hob.app.channels.strangers(query),
    );
    return c.json({ strangers });
  });
  routes.delete("/pending/:channel/:sender_id", (c) => {
    // The action checks the channel's name.
    const channel = c.req.param("channel") as ForgetStrangerInput["channel"];
    act(() => hob.app.channels.forgetStranger({ channel, sender_id: c.req.param("sender_id") }));
    return c.body(null, 204);
  });
  routes.post("/:channel/test", async (c) => {
    await actAsync(() => hob.app.channels.sendTest(c.req.param("channel")));
    return c.json({ sent: true });
  });
  return routes;
}
