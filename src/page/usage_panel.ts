/**
 * The page's Usage view: what the model calls cost — totals, a chart of
 * spend per day drawn as inline SVG (no script, no CDN; its title and
 * description say what a screen reader needs), the groups and the budgets.
 * Plain HTML from the usage report; every value escaped by hono/html.
 */

import { html } from "hono/html";
import { usd } from "../app/budgets.ts";
import { USAGE_BY, type UsageReport } from "../app/usage.ts";
import { emptyState, type Html, viewHead } from "./view_parts.ts";

/**
 * The chart's drawing size: it is stretched to the panel's width, so it holds
 * only bars — the dates under it are the page's text, which never stretches.
 */
const CHART_WIDTH = 600;
const CHART_HEIGHT = 142;

/**
 * The Usage panel for a report.
 *
 * @example
 * ```ts
 * c.html(usagePanel(hob.app.usage.report({ since: "30d", by: "kind" }), new Date()));
 * ```
 */
export function usagePanel(report: UsageReport, now: Date): Html {
  const { totals } = report;
  return html`${
    viewHead(
      "Usage",
      html`What hob's model calls cost since ${
        report.since.slice(0, 10)
      }: chats, titles, jobs, tasks, the heartbeat.`,
    )
  }
<ul class="stats" aria-label="Totals">
  <li><b>${usd(totals.cost_usd)}</b><span>spent</span></li>
  <li><b>${count(totals.calls)}</b><span>model calls</span></li>
  <li><b>${count(totals.input_tokens)}</b><span>tokens in (${
    count(totals.cached_tokens)
  } cached)</span></li>
  <li><b>${count(totals.output_tokens)}</b><span>tokens out</span></li>
</ul>
${budgetList(report)}
${
    totals.cost_usd > 0
      ? spendChart(dailySeries(report.days, report.since, now))
      : noSpend(totals.calls)
  }
${
    report.groups.length > 0
      ? html`<div class="toolbar" role="group" aria-label="Group by">${
        USAGE_BY.map((by) =>
          html`<button type="button" hx-get="/ui/panel/usage?by=${by}" hx-target="#panel"
  aria-pressed="${by === report.by ? "true" : "false"}">By ${by}</button>`
        )
      }</div>
${groupTable(report)}`
      : ""
  }`;
}

/**
 * In place of a chart of nothing: what will be drawn here, and why nothing
 * is yet (no calls, or calls without a price).
 */
function noSpend(calls: number): Html {
  if (calls === 0) {
    return emptyState(
      "No model calls yet in this period",
      "Once hob talks to a model (a chat, a scheduled job, the heartbeat), a chart of what each day cost appears here, with the calls by model, kind, job and tool.",
    );
  }
  return emptyState(
    "Nothing spent in this period",
    html`The ${count(calls)} model call(s) cost nothing: local models are free, and a model hob
      knows no price for counts as 0 (set one under <code>usage.prices</code> in hob.yaml,
      docs/usage.md). A chart of spend per day appears here once calls cost something.`,
  );
}

function budgetList(report: UsageReport): Html | string {
  if (report.budgets.length === 0) return "";
  return html`<ul class="cards budgets" aria-label="Budgets">${
    report.budgets.map((budget) => {
      const share = budget.limit_usd > 0 ? budget.spent_usd / budget.limit_usd : 1;
      const limit = budget.limit_usd;
      return html`
        <li>
          <div class="title">${budget.period === "daily" ? "Today" : "This month"}</div>
          <div class="${share >= 1 ? "status-bad" : share >= 0.8 ? "status-warn" : ""}">${usd(
            budget.spent_usd,
          )} of ${usd(limit)} (${Math.round(share * 100)} %)</div>
          <meter min="0" max="${limit}" low="${limit * 0.8}" high="${limit}" optimum="0"
            value="${budget
              .spent_usd}" aria-hidden="true"></meter>
        </li>
      `;
    })
  }</ul>`;
}

function groupTable(report: UsageReport): Html {
  return html`
    <div class="table-wrap">
      <table class="grid">
        <caption class="visually-hidden">Spend by ${report.by}</caption>
        <thead>
          <tr>
            <th scope="col">${report.by}</th>
            <th scope="col">Calls</th>
            <th scope="col">In</th>
            <th scope="col">Cached</th>
            <th scope="col">Out</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>${report.groups.map((row) =>
          html`
            <tr>
              <th scope="row">${row.key ?? "—"}</th>
              <td>${row.calls}</td>
              <td>${count(row.input_tokens)}</td>
              <td>${count(row.cached_tokens)}</td>
              <td>${count(row.output_tokens)}</td>
              <td>${usd(row.cost_usd)}</td>
            </tr>
          `
        )}</tbody>
      </table>
    </div>
  `;
}

/** One entry per UTC day from `since` to today, days without calls at 0. */
export function dailySeries(
  days: UsageReport["days"],
  since: string,
  now: Date,
): [string, number][] {
  const spent = new Map(days.map((day) => [day.key, day.cost_usd]));
  const series: [string, number][] = [];
  const last = now.toISOString().slice(0, 10);
  for (let day = new Date(since.slice(0, 10)); series.length < 3_700;) {
    const key = day.toISOString().slice(0, 10);
    series.push([key, spent.get(key) ?? 0]);
    if (key >= last) break;
    day = new Date(day.getTime() + 86_400_000);
  }
  return series;
}

/** Daily bars of spend, as an inline SVG image with a title and a description. */
export function spendChart(series: [string, number][]): Html {
  const max = Math.max(0, ...series.map(([, usd]) => usd));
  const total = series.reduce((sum, [, usd]) => sum + usd, 0);
  const peak = series.find(([, usd]) => usd === max && max > 0);
  const step = CHART_WIDTH / Math.max(1, series.length);
  const plot = CHART_HEIGHT;
  const first = series[0]?.[0] ?? "";
  const last = series.at(-1)?.[0] ?? "";
  return html`
    <figure class="usage-chart">
      <svg role="img" aria-labelledby="usage-chart-title usage-chart-desc"
        viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}"
        width="100%" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">
    <title id="usage-chart-title">Model spend per day</title>
    <desc id="usage-chart-desc">${series.length} day(s) from ${first} to ${last}: ${usd(
      total,
    )} in all${peak ? `, most on ${peak[0]} (${usd(peak[1])})` : ""}.</desc>
    ${series.map(([day, amount], index) => {
      const height = max > 0 ? Math.max(amount > 0 ? 1 : 0, (amount / max) * (plot - 4)) : 0;
      return html`
        <rect class="bar" x="${(index * step + step * 0.1).toFixed(2)}" y="${(plot - height)
          .toFixed(2)}" width="${(step * 0.8).toFixed(2)}" height="${height.toFixed(2)}"
          fill="currentColor">
          <title>${day}: ${usd(amount)}</title>
        </rect>
      `;
    })}
      </svg>
      <div class="chart-axis" aria-hidden="true"><span>${first}</span><span>${last}</span></div>
      <figcaption class="muted">Spend per day (UTC), highest ${usd(max)}.</figcaption>
    </figure>
  `;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
