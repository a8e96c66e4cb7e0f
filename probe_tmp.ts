const t = performance.now();
const sdk = await import("matrix-js-sdk");
console.log(
  "loaded",
  (performance.now() - t).toFixed(0),
  "ms",
  typeof sdk.createClient,
  typeof sdk.Method,
);
const client = sdk.createClient({
  baseUrl: "http://127.0.0.1:9",
  accessToken: "x",
  userId: "@hob:test",
});
console.log(
  typeof client.http.authedRequest,
  typeof client.sendEvent,
  typeof client.sendTyping,
  typeof client.whoami,
  typeof client.joinRoom,
);
