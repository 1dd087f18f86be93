/**
 * The status page's run console: recent runs in a table (newest first: time, tool, outcome,
 * duration, calls, caller), two inline SVG charts (run durations over time, outcomes per tool)
 * and one run's detail (program with line numbers, logs, calls, result). Plain HTML and a small
 * script reading `/api/runs` (browser/console.ts, a real module built to script text by
 * `npm run build:sandbox`); no framework, no external asset.
 *
 * Security defaults: the page itself holds no run (the runs are read with the caller's key when
 * one is needed, like `/mcp`); the script writes every value with `textContent`, never as HTML.
 */
import { CONSOLE_SCRIPT } from "../generated/browser-scripts";

/** What the console needs to know about the configuration. */
export interface ConsoleOptions {
  /** Whether runs are recorded (`RUNS`). */
  enabled: boolean;
  /** Whether `/api/runs` needs a bearer token (API key or OAuth). */
  needsToken: boolean;
}

/** The console's CSS (joins the page's style block). */
export const CONSOLE_STYLE = `
.table-scroll{max-width:100%;overflow-x:auto}#runs-table{display:table;width:100%;font-size:13px}#runs-table td:not(:last-child),#runs-table th{white-space:nowrap}#runs-table td:last-child{min-width:14rem;font-family:ui-monospace,monospace;font-size:12px}#runs-table tbody tr{cursor:pointer}#runs-table tbody tr:hover{background:#f0f4ff}
.o-ok{color:#0a7d32}.o-error{color:#b00020}.o-timeout,.o-limit{color:#8a5300}
.charts{display:flex;gap:1rem;flex-wrap:wrap}.charts figure{margin:0;flex:1 1 26rem}.charts figcaption{font-size:13px;color:#666}
svg.chart{width:100%;height:190px;background:#fafafa;border:1px solid #e5e5e5}svg.chart text{font:11px system-ui,sans-serif;fill:#555}svg.chart text.hint{font-size:14px;fill:#8a5300}
ol.program{background:#f5f5f7;padding:.5rem .5rem .5rem 3rem;font:13px ui-monospace,monospace;max-height:24rem;overflow:auto}
ol.program li{white-space:pre-wrap;overflow-wrap:anywhere}ol.program li::marker{color:#999}
#run-facts{overflow-wrap:anywhere}`;

/**
 * The console's HTML.
 * @param options - whether runs are on and need a token
 */
export function consoleSection(options: ConsoleOptions): string {
  if (!options.enabled)
    return `<h2>Runs</h2><p id="runs-off" class="muted">The run history is off (RUNS=off).</p>`;
  return `<h2>Runs</h2>
<form id="runs-form">
<label>tool <select id="runs-tool"><option value="">all</option><option>search</option><option>execute</option><option>code</option></select></label>
<label>outcome <select id="runs-outcome"><option value="">all</option><option>ok</option><option>error</option><option>timeout</option><option>limit</option></select></label>
<button id="runs-load" type="submit">Load runs</button> <span id="runs-status" class="muted"></span>
</form>
<div class="charts">
<figure><figcaption>Run durations over time (ms)</figcaption><svg id="chart-durations" class="chart" viewBox="0 0 520 190" role="img" aria-label="run durations over time"></svg></figure>
<figure><figcaption>Outcomes per tool</figcaption><svg id="chart-outcomes" class="chart" viewBox="0 0 520 190" role="img" aria-label="outcomes per tool"></svg></figure>
</div>
<div class="table-scroll"><table id="runs-table" data-state="idle"><thead><tr><th>time</th><th>tool</th><th>outcome</th><th>duration</th><th>calls</th><th>caller</th><th>program</th></tr></thead><tbody></tbody></table></div>
<p><button id="runs-more" type="button" hidden>Older runs</button></p>
<section id="run-detail" hidden>
<h3 id="run-title"></h3>
<p id="run-facts" class="muted"></p>
<h4>Program</h4><ol id="run-program" class="program"></ol>
<h4>Calls</h4><table id="run-calls"><thead><tr><th>#</th><th>call</th><th>status</th><th>ms</th><th>error</th></tr></thead><tbody></tbody></table>
<h4>Logs</h4><pre id="run-logs"></pre>
<h4>Result</h4><pre id="run-result"></pre>
</section>
<script>${CONSOLE_SCRIPT}</script>`;
}
