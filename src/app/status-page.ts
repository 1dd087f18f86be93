/**
 * The status page at `/`: renders a {@link StatusReport} as one self-contained HTML document
 * (inline CSS and script, no external assets, so it works offline) with a form that runs a
 * `search` program through `/api/search` (its script: browser/search-form.ts, built to text by
 * `npm run build:sandbox`), and the run console (runs/console-section.ts).
 *
 * Security defaults: every value is HTML-escaped; the page holds no secret (an API key typed
 * into the form is sent only with the search request and never stored).
 */
import type { EndpointReport, StatusReport } from "./status-report";
import { CONSOLE_STYLE, consoleSection, type ConsoleOptions } from "./runs/console-section";
import { SEARCH_FORM_SCRIPT } from "./generated/browser-scripts";
import { skillsSection } from "./skills/skills-console";

/** The program the search form starts with. */
export const DEFAULT_SEARCH_PROGRAM = `async () => {
  const spec = await codemode.spec();
  return Object.entries(spec.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => \`\${method.toUpperCase()} \${path}  \${op.operationId ?? ""}\`),
  ).slice(0, 25);
}`;

/**
 * Renders the status page.
 * @param report - the status data
 * @param needsKey - whether the search endpoint needs the API key (shows the page's one key field)
 * @param runs - the run console's options (default: off)
 * @param skills - whether saved skills are on (the skills section loads them with the page's key)
 */
export function statusPage(
  report: StatusReport,
  needsKey: boolean,
  runs: ConsoleOptions = { enabled: false, needsToken: needsKey },
  skills = false,
): string {
  // One key box for the whole page (the search form and the runs), at the top, when either needs it.
  const keyBox =
    needsKey || ((runs.enabled || skills) && runs.needsToken)
      ? `<p id="page-key-box"><label>API key or OAuth access token for this page <input id="page-key" type="password" autocomplete="off"></label> <span class="muted">sent as a bearer token by the search form and the runs below; kept in this page only</span></p>\n`
      : "";
  const body = report.ok
    ? `${keyBox}${healthy(report)}\n${consoleSection(runs)}\n${skillsSection(skills)}`
    : broken(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Code Mode MCP server</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>
*,*::before,*::after{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:1.8rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.4rem 0;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #ddd;padding:.25rem .6rem;text-align:left;overflow-wrap:break-word}
th{background:#f5f5f7}code,pre,textarea{font:13px ui-monospace,monospace}
table.skills td:first-child{min-width:8rem;overflow-wrap:anywhere}table.skills td:nth-child(n+4){min-width:16rem;overflow-wrap:anywhere}
textarea{width:100%;min-height:9rem}pre{background:#f5f5f7;padding:.6rem;overflow:auto;max-height:28rem;white-space:pre-wrap;overflow-wrap:anywhere}
.warn{color:#8a5300}.bad{color:#b00020}.muted{color:#666}${CONSOLE_STYLE}
</style></head><body>
<h1>Code Mode MCP server</h1>
${body}
</body></html>`;
}

function healthy(r: StatusReport): string {
  const s = r.spec!;
  const warnings = r.warnings.map((w) => `<p class="warn">⚠ ${esc(w)}</p>`).join("");
  return `${warnings}
<h2>Spec served at <code>/mcp</code></h2>
<table id="spec">
<tr><th>name</th><td id="spec-name">${esc(s.name)}</td></tr>
<tr><th>title</th><td>${esc(s.title)} ${esc(s.version)} <span class="muted">(OpenAPI ${esc(s.openapi)})</span></td></tr>
<tr><th>operations</th><td id="spec-operations">${s.operations}</td></tr>
<tr><th>paths / tags</th><td>${s.paths} / ${s.tags}</td></tr>
<tr><th>size (compact JSON)</th><td id="spec-bytes">${s.bytes.toLocaleString("en-US")} bytes</td></tr>
<tr><th>requests go to</th><td>${r.api!.kind === "demo" ? "the in-process demo API (<code>/demo-api</code>)" : esc(r.api!.origin ?? "")}${r.api!.credential ? " · credential added by the host" : ""}${r.api!.forwardCallerToken ? " · caller's token forwarded" : ""}</td></tr>
</table>
<h2>Endpoints and their tools</h2>
${r.endpoints.map(endpoint).join("\n")}
<h2>Upstream MCP server at <code>/mcp/code</code></h2>
<p id="upstream">${
    r.upstream!.kind === "demo"
      ? `The demo projects server (in-process): ${r.upstream!.tools!.map((t) => `<code>${esc(t)}</code>`).join(", ")}`
      : r.upstream!.kind === "off"
        ? `Off: no upstream MCP server is configured (the demo's is served only with the demo spec). To wrap an MCP server's tools in one <code>code</code> tool here, set <code>UPSTREAM_MCP_URL=https://mcp.example.com/mcp</code> (<code>npx code-mode-mcp serve --upstream &lt;url&gt;</code>).`
        : `${esc(r.upstream!.origin ?? "")}${r.upstream!.auth ? " · auth header configured" : ""}`
  }</p>
<h2>Limits (per run)</h2>
<table id="limits">${Object.entries(r.limits!)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${Number(v).toLocaleString("en-US")}</td></tr>`)
    .join("")}</table>
<h2>Protection</h2>
<p id="protection">API key: ${onOff(r.protection!.apiKey)} · OAuth: ${onOff(r.protection!.oauth)} · approvals for writes: ${onOff(r.protection!.approvals)}</p>
<h2>Try <code>search</code></h2>
<form id="search-form">
<textarea id="search-code" spellcheck="false">${esc(DEFAULT_SEARCH_PROGRAM)}</textarea>
<p><button id="search-run" type="submit">Run search</button> <span id="search-status" class="muted"></span></p>
</form>
<pre id="search-result" data-state="idle">(no result yet)</pre>
<script>${SEARCH_FORM_SCRIPT}</script>`;
}

function endpoint(e: EndpointReport): string {
  if (e.error)
    return `<p class="bad"><code>${esc(e.route)}</code> (${esc(e.kind)}): ${esc(e.error)}</p>`;
  const rows = e.tools
    .map(
      (t) =>
        `<tr><td><code>${esc(t.name)}</code></td><td>${t.descriptionChars}</td><td>${t.tokens}</td></tr>`,
    )
    .join("");
  const heading = e.count.kind === "o200k" ? "o200k tokens" : "≈ tokens (estimate)";
  return `<h3><code>${esc(e.route)}</code> · ${esc(e.kind)}</h3>
<p class="muted token-note" data-route="${esc(e.route)}">${esc(e.count.note)}.</p>
<table class="tools" data-route="${esc(e.route)}" data-count="${e.count.kind}"><tr><th>tool</th><th>description chars</th><th>${heading}</th></tr>${rows}
<tr><th>tools/list total</th><td></td><td class="total-tokens">${e.totalTokens}</td></tr></table>`;
}

function broken(r: StatusReport): string {
  return `<p class="bad">The configuration is invalid; the MCP endpoints answer 503 until it is fixed.</p>
<ul id="problems">${r.problems
    .map((p) => `<li><code>${esc(p.setting)}</code>: ${esc(p.message)}<br>Fix: ${esc(p.fix)}</li>`)
    .join("")}</ul>`;
}

function onOff(on: boolean): string {
  return on ? "<b>on</b>" : "off";
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/**
 * The page's icon, served at `/favicon.ico` (browsers ask for it on every page): braces on the
 * page's blue, as SVG, which browsers accept at that path.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2f5bd3"/><text x="16" y="23" font-family="monospace" font-size="18" font-weight="bold" fill="#fff" text-anchor="middle">{}</text></svg>`;
