// The floor of the start-up figures (bench/startup.ts): `deno run` of a script that does nothing.
