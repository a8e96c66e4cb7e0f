/**
 * The assertions the tests use, named as in Deno's standard library, built on
 * node:assert (JSR's @std/assert is not reachable from these machines).
 */

import nodeAssert from "node:assert/strict";

/** Fails unless `value` is truthy; narrows its type. */
export function assert(value: unknown, message?: string): asserts value {
  nodeAssert.ok(value, message as string);
}

/** Fails unless `actual` deeply and strictly equals `expected`. */
export function assertEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, message as string);
}

/** Fails unless `actual` is the very same value as `expected` (`Object.is`). */
export function assertStrictEquals(actual: unknown, expected: unknown, message?: string): void {
  nodeAssert.strictEqual(actual, expected, message as string);
}

/** Fails if `actual` deeply and strictly equals `expected`. */
export function assertNotEquals(actual: unknown, expected: unknown, message?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, message as string);
}

/** Fails unless `text` matches `pattern`. */
export function assertMatch(text: string, pattern: RegExp, message?: string): void {
  nodeAssert.match(text, pattern, message as string);
}

/** Fails unless `text` contains `part`. */
export function assertStringIncludes(text: string, part: string, message?: string): void {
  nodeAssert.ok(
    text.includes(part),
    message ?? `expected ${JSON.stringify(text.slice(0, 500))} to include ${JSON.stringify(part)}`,
  );
}

/** Fails unless `fn` throws (or rejects); returns the error for further checks. */
export async function assertRejects(
  fn: () => unknown,
  message?: string,
): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  throw new nodeAssert.AssertionError({ message: message ?? "expected a rejection" });
}

/** Fails unless `fn` throws an instance of `ErrorClass` whose message includes `includes`. */
export function assertThrows(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => Error = Error,
  includes = "",
): Error {
  try {
    fn();
  } catch (error) {
    nodeAssert.ok(error instanceof ErrorClass, `expected ${ErrorClass.name}, got ${error}`);
    assertStringIncludes((error as Error).message, includes);
    return error as Error;
  }
  throw new nodeAssert.AssertionError({ message: "expected a throw" });
}
