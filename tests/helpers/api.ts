/** The real app over a temporary runtime, called in-process with the token. */

import { createApp } from "../../src/http/app.ts";
import { webRoutes } from "../../src/web/routes.ts";
import { tempRuntime } from "./home.ts";

/** Opens a runtime with `yaml` and the app over it; `call` sends JSON with the token. */
export async function tempApi(yaml: string) {
  const env = await tempRuntime(yaml);
  const app = createApp(env.runtime, { token: env.home.token, page: webRoutes });
  /** `auth: false` sends no token. */
  const call = (path: string, init: RequestInit & { json?: unknown; auth?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth !== false) headers.set("authorization", `Bearer ${env.home.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return app.request(path, { ...init, headers, body });
  };
  return { ...env, app, call, [Symbol.asyncDispose]: env[Symbol.asyncDispose] };
}
