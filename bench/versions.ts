/**
 * What keeping file versions costs, each figure beside its floor in the same run: a
 * memory write (remember) recorded as a version, beside the same write by a
 * writer that records nothing; and the start-up scan that records files no
 * version has, on a home of many memory files, first (every file recorded)
 * and again (nothing new), beside reading the same files.
 */

import { join } from "node:path";
import { MemoryFiles } from "../src/memory/files.ts";
import { FileVersions } from "../src/memory/versions.ts";
import { openDatabase } from "../src/store/database.ts";
import { floorRatio, percentile } from "./stats.ts";

const WRITES = 200;
const FILES = 1_000;
const BY = { author: "owner", via: "bench" } as const;

/** What the versions bench found, in milliseconds. */
export interface VersionsFigures {
  write_p50: number;
  write_floor_p50: number;
  files: number;
  first_scan: number;
  later_scan: number;
  read_floor: number;
}

/** Measures the writes and the scans in temporary homes. */
export async function measureVersions(): Promise<VersionsFigures> {
  const home = await Deno.makeTempDir({ prefix: "hob-bench-versions-" });
  try {
    const db = openDatabase(join(home, "hob.db"));
    const versions = new FileVersions({ home, db, now: () => new Date() });
    const plain = new MemoryFiles({ dir: join(home, "plain"), now: () => new Date() });
    const recorded: number[] = [];
    const floor: number[] = [];
    // Alternated, so a busy moment of the machine falls on both.
    for (let i = 0; i < WRITES; i++) {
      let started = performance.now();
      await versions.memory.remember(`Fact number ${i}: ${"detail ".repeat(12)}`, BY);
      recorded.push(performance.now() - started);
      started = performance.now();
      await plain.remember(`Fact number ${i}: ${"detail ".repeat(12)}`, BY);
      floor.push(performance.now() - started);
    }
    const notes = join(home, "memory", "notes");
    await Deno.mkdir(notes, { recursive: true });
    for (let i = 0; i < FILES; i++) {
      await Deno.writeTextFile(join(notes, `${i}.md`), `# Note ${i}\n\n${"words ".repeat(80)}\n`);
    }
    let started = performance.now();
    for await (const entry of Deno.readDir(notes)) await Deno.readTextFile(join(notes, entry.name));
    const readFloor = performance.now() - started;
    started = performance.now();
    await versions.scan();
    const firstScan = performance.now() - started;
    started = performance.now();
    await versions.scan();
    const laterScan = performance.now() - started;
    db.close();
    return {
      write_p50: percentile(recorded, 50),
      write_floor_p50: percentile(floor, 50),
      files: FILES,
      first_scan: firstScan,
      later_scan: laterScan,
      read_floor: readFloor,
    };
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** The figures as lines, each with its ratio to its floor. */
export function formatVersions(figures: VersionsFigures): string {
  const f = (value: number) => `${value.toFixed(2)} ms`;
  return [
    `memory write recorded as a version, p50     ${f(figures.write_p50)} (${
      floorRatio(figures.write_p50, figures.write_floor_p50)
    } the same write unrecorded, ${f(figures.write_floor_p50)})`,
    `start-up scan, ${figures.files} files, first      ${f(figures.first_scan)} (${
      floorRatio(figures.first_scan, figures.read_floor)
    } reading them, ${f(figures.read_floor)})`,
    `start-up scan, ${figures.files} files, later      ${f(figures.later_scan)} (${
      floorRatio(figures.later_scan, figures.read_floor)
    } reading them)`,
  ].join("\n");
}

if (import.meta.main) console.log(formatVersions(await measureVersions()));
