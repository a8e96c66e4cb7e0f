/**
 * The page's Usage view: what the model calls cost — totals, a chart of
 * spend per day drawn as inline SVG (no script, no CDN; its title and
 * description say what a screen reader needs), the groups and the budgets.
 * Plain HTML from the usage report; every value escaped by hono/html.
 */

import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { usd } from "../app/budgets.ts";
import { USAGE_BY, type UsageReport } from "../app/usage.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The chart's drawing size (it scales to the panel's width). */
const CHART_WIDTH = 600;
const CHART_HEIGHT = 160;
/** Room under the bars for the first and last dates. */
const AXIS_HEIGHT = 18;

/**
 * The Usage panel for a report.
 *
 * @example
 * ```ts
 * c.html(usagePanel(runtime.app.usage.report({ since: "30d", by: "kind" }), new Date()));
 * ```
 */
export function usagePanel(report: UsageReport, now: Date): Html {
  const { totals } = report;
  return html`<h1>Usage</h1>
<p>Since ${report.since.slice(0, 10)}: <strong>${
    usd(totals.cost_usd)
  }</strong> for ${totals.calls} model call(s),
${count(totals.input_tokens)} tokens in (${count(totals.cached_tokens)} cached), ${
    count(totals.output_tokens)
  } out.</p>
${budgetList(report)}
${spendChart(dailySeries(report.days, report.since, now))}
<div class="toolbar" role="group" aria-label="Group by">${
    USAGE_BY.map((by) =>
      html`<button type="button" hx-get="/ui/panel/usage?by=${by}" hx-target="#panel"
  aria-pressed="${by === report.by ? "true" : "false"}">By ${by}</button>`
    )
  }</div>
${groupTable(report)}`;
}

function budgetList(report: UsageReport): Html | string {
  if (report.budgets.length === 0) return "";
  return html`<ul class="cards">${
    report.budgets.map((budget) => {
      const share = budget.limit_usd > 0 ? budget.spent_usd / budget.limit_usd : 1;
      return html`
        <li>
          <div class="title">${budget.period === "daily" ? "Today" : "This month"}</div>
          <div class="${share >= 1 ? "status-bad" : share >= 0.8 ? "status-warn" : ""}">${usd(
            budget.spent_usd,
          )} of ${usd(budget.limit_usd)} (${Math.round(share * 100)} %)</div>
        </li>
      `;
    })
  }</ul>`;
}

function groupTable(report: UsageReport): Html {
  if (report.groups.length === 0) {
    return html`<p class="muted">No model calls yet in this period.</p>`;
  }
  return html`
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
  const plot = CHART_HEIGHT - AXIS_HEIGHT;
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
    <line x1="0" y1="${plot}" x2="${CHART_WIDTH}" y2="${plot}" stroke="currentColor" stroke-opacity="0.3"/>
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
    <text x="0" y="${CHART_HEIGHT - 4}" font-size="11" fill="currentColor">${first}</text>
    <text x="${CHART_WIDTH}" y="${CHART_HEIGHT -
      4}" font-size="11" text-anchor="end" fill="currentColor">${last}</text>
      </svg>
      <figcaption class="muted">Spend per day (UTC), highest ${usd(max)}.</figcaption>
    </figure>
  `;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
