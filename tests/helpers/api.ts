/** The real API over a temporary runtime, called in-process with the token. */

import { createApi } from "../../src/http/api.ts";
import { pageRoutes } from "../../src/page/routes.ts";
import { tempRuntime } from "./home.ts";

/** Opens a runtime with `yaml` and the API over it (`http`); `call` sends JSON with the token. */
export async function tempApi(yaml: string) {
  const env = await tempRuntime(yaml);
  const http = createApi(env.runtime, { token: env.home.token, page: pageRoutes });
  /** `auth: false` sends no token. */
  const call = (path: string, init: RequestInit & { json?: unknown; auth?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth !== false) headers.set("authorization", `Bearer ${env.home.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return http.request(path, { ...init, headers, body });
  };
  return { ...env, http, call, [Symbol.asyncDispose]: env[Symbol.asyncDispose] };
}
