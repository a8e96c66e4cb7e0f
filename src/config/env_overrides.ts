/**
 * The environment variables that override single keys of hob.yaml: laid over
 * the file when it is read (parse.ts), and part of what a kept reading
 * depends on (load.ts).
 */

/** Environment variables that override single keys, and the key each sets. */
export const ENV_OVERRIDES = [
  { name: "HOB_MODEL", key: ["model"], kind: "string" },
  { name: "HOB_HOST", key: ["server", "host"], kind: "string" },
  { name: "HOB_PORT", key: ["server", "port"], kind: "port" },
] as const;
