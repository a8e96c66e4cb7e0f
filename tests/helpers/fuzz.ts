/**
 * Seeded randomness and hostile values for fuzz tests: the same seed gives
 * the same cases, so a failure found once can be replayed. Knows nothing of
 * hob; the fuzz tests decide where each value goes.
 */

/** A seeded source of random choices. */
export interface Fuzzer {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A short string of printable ASCII. */
  word(max?: number): string;
}

/**
 * A fuzzer over mulberry32, a small PRNG whose sequence depends only on the seed.
 *
 * @example
 * ```ts
 * const f = fuzzer(42);
 * f.pick(["a", "b"]); // the same letter on every run
 * ```
 */
export function fuzzer(seed: number): Fuzzer {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[int(0, items.length - 1)],
    word(max = 12) {
      const length = int(1, max);
      let text = "";
      for (let i = 0; i < length; i++) text += String.fromCharCode(int(0x21, 0x7e));
      return text;
    },
  };
}

/** Paths that try to leave a directory, as a caller would type them (not URL-encoded). */
export const TRAVERSAL_PATHS: readonly string[] = [
  "../../../../etc/passwd",
  "../token",
  "../../token",
  "/etc/passwd",
  "/etc/shadow",
  "~/.ssh/id_rsa",
  "~",
  "..",
  ".",
  "./../hob.yaml",
  "notes/../../token",
  "....//....//etc/passwd",
  "..\\..\\windows\\win.ini",
  "C:\\Windows\\win.ini",
  "file:///etc/passwd",
  "//etc/passwd",
  "a\u0000b",
  "MEMORY.md\u0000.txt",
  "\u0000",
  "/proc/self/environ",
  "/dev/zero",
  "/dev/random",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "..%2F..%2Ftoken",
  "\u2025/\u2025/token",
  "x/".repeat(200) + "y",
  "a".repeat(5_000),
];

/** Path segments for URLs: traversal percent-encoded the ways servers get it wrong, and bad escapes. */
export const TRAVERSAL_SEGMENTS: readonly string[] = [
  "..%2F..%2Fetc%2Fpasswd",
  "..%2f..%2f..%2ftoken",
  "%2e%2e%2f%2e%2e%2ftoken",
  "%2e%2e/%2e%2e/token",
  "..%252F..%252Ftoken",
  "%252e%252e%252ftoken",
  "..%5C..%5Ctoken",
  "%2Fetc%2Fpasswd",
  "%00",
  "MEMORY.md%00.txt",
  "a%00b",
  "%ff",
  "%fe%ff",
  "%c0%ae%c0%ae%2f",
  "%e0%80%ae",
  "%ed%a0%80",
  "%",
  "%%",
  "%zz",
  "%2",
  "%u002e",
  "..%c0%af..%c0%aftoken",
  "..;%2F..;%2Ftoken",
  "%0d%0aSet-Cookie:%20x=1",
  "%3Cscript%3E",
  "%20",
  "x".repeat(3_000),
  "%E2%80%AE",
  "%F0%9F%92%A9",
];

/** Strings that have broken parsers, templates, SQL and terminals before. */
export const HOSTILE_STRINGS: readonly string[] = [
  "",
  " ",
  "\t\n\r",
  "\u0000",
  "\u0000\u0001\u0002\u001b[31m",
  "null",
  "undefined",
  "true",
  "NaN",
  "-1",
  "0",
  "1e309",
  "-0",
  "9".repeat(400),
  "0x1f",
  "\ud800",
  "\udfff\ud800",
  "\uFEFF",
  "\u202eevil",
  "\uffff",
  "💩👩‍👩‍👧‍👦",
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "'; DROP TABLE messages; --",
  '" OR 1=1 --',
  "%s%s%s%n",
  "${{7*7}}",
  "{{constructor.constructor('return 1')()}}",
  "__proto__",
  "constructor",
  "prototype",
  "a\r\nX-Injected: 1",
  "../../etc/passwd",
  "MATCH * NEAR(",
  '"unterminated',
  "*",
  "AND OR NOT",
  "()",
  "\\",
  "hob/../../x",
  "ollama/../../x",
];

/** A random JSON value of any type, often hostile, at most `depth` levels deep. */
export function hostileValue(f: Fuzzer, depth = 3): unknown {
  switch (f.int(0, depth > 0 ? 9 : 6)) {
    case 0:
      return f.pick(HOSTILE_STRINGS);
    case 1:
      return f.pick([
        0,
        -1,
        1,
        1.5,
        -0.5,
        2 ** 53 + 1,
        -(2 ** 63),
        1e308,
        -1e308,
        Number.MIN_VALUE,
        123456789012,
      ]);
    case 2:
      return f.chance(0.5);
    case 3:
      return null;
    case 4:
      return f.word(20);
    case 5:
      return f.chance(0.1) ? "x".repeat(f.int(10_000, 120_000)) : f.word(40);
    case 6:
      return f.pick(TRAVERSAL_PATHS);
    case 7:
    case 8: {
      const list: unknown[] = [];
      for (let i = f.int(0, 4); i > 0; i--) list.push(hostileValue(f, depth - 1));
      return list;
    }
    default: {
      const object: Record<string, unknown> = {};
      for (let i = f.int(0, 4); i > 0; i--) {
        // Own properties even for `__proto__`, so JSON.stringify sends the key as it is.
        setOwn(
          object,
          f.chance(0.3) ? f.pick(HOSTILE_STRINGS) : f.word(8),
          hostileValue(f, depth - 1),
        );
      }
      return object;
    }
  }
}

/** Sets `key` as an own, enumerable property, whatever its name (`__proto__` included). */
export function setOwn(object: object, key: string | number, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** `depth` nested arrays (or objects) as JSON text, around `inner`. */
export function deepNesting(
  depth: number,
  kind: "array" | "object" = "array",
  inner = "1",
): string {
  return kind === "array"
    ? "[".repeat(depth) + inner + "]".repeat(depth)
    : '{"a":'.repeat(depth) + inner + "}".repeat(depth);
}

/** JSON text that no parser should accept. */
export const MALFORMED_JSON: readonly string[] = [
  "",
  " ",
  "{",
  "}",
  "[",
  "{]",
  '{"a":}',
  '{"a" 1}',
  "{'a': 1}",
  '{"a": 1,}',
  "[1, 2,]",
  '{"a": 1}}',
  '{"a": 1} {"b": 2}',
  "NaN",
  "Infinity",
  "undefined",
  '{"a": undefined}',
  '{"a": 0x10}',
  '{"a": 01}',
  '{"a": .5}',
  '{"a": "\\x41"}',
  '{"a": "\\u12"}',
  '{"a": "line\nbreak"}',
  '{"a": "\u0000"}',
  "\uFEFF{}",
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  "/* comment */ {}",
  '{"a": 1e999999}',
  '{"a": -}',
  "tru",
  "nul",
  '"just a string"',
  "42",
  "null",
  "[]",
  "true",
  "{".repeat(1_000),
  '{"a":"' + "\\".repeat(999) + '"}',
];

/** Byte sequences that are not UTF-8: stray continuation bytes, overlongs, surrogates, truncations. */
export const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xbf, 0xbf],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x92],
];

/** JSON text whose string literals hold bytes that are not UTF-8. */
export function invalidUtf8Json(f: Fuzzer, template: string): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const [before, after] = template.includes("@@") ? template.split("@@") : [template, ""];
  const bad: number[] = [];
  for (let i = f.int(1, 4); i > 0; i--) bad.push(...f.pick(INVALID_UTF8), ...encoder.encode("x"));
  return new Uint8Array([...encoder.encode(before), ...bad, ...encoder.encode(after)]);
}
