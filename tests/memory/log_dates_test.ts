/** A month or day named in a search, as the daily logs it points to. */

import { assertEquals } from "../helpers/assert.ts";
import { logDates } from "../../src/memory/log_dates.ts";

const years = () => ["2025", "2026"];

Deno.test("logDates turns a month or a day a query names into its logs' date headings", async (t) => {
  await t.step("a month: every year's logs of that month", () => {
    assertEquals(
      logDates("how much was our energy bill in October", years),
      new Map([["october", 'heading : ^"2025 10" OR heading : ^"2026 10"']]),
    );
  });
  await t.step("a day, either way round, with or without its ordinal", () => {
    const day = new Map([["october", 'heading : ^"2025 10 04" OR heading : ^"2026 10 04"']]);
    assertEquals(logDates("what did I do on 4 October", years), day);
    assertEquals(logDates("what did I do on the 4th of October?", years), day);
    assertEquals(logDates("what happened October 4th", years), day);
  });
  await t.step("'may' is a month after a word of time or beside a day, not as a verb", () => {
    assertEquals([...logDates("may I take ibuprofen", years).keys()], []);
    assertEquals([...logDates("what renews in May", years).keys()], ["may"]);
    assertEquals([...logDates("what happened on 3 May", years).keys()], ["may"]);
  });
  await t.step("no month, or no daily logs: nothing, and the years are not asked", () => {
    let asked = 0;
    assertEquals(logDates("where is the spare key", () => (asked++, ["2026"])).size, 0);
    assertEquals(asked, 0);
    assertEquals(logDates("in October", () => []).size, 0);
  });
});
