/**
 * The run console of the status page, in the browser: loads `/api/runs`, fills the table, draws
 * the two charts as SVG and shows a run's detail on click. The HTML it works on is
 * src/app/runs/console-section.ts; `npm run build:sandbox` bundles this module into the text the
 * page inlines (src/app/generated/browser-scripts.ts). Type-checked against the DOM by
 * browser/tsconfig.json; no dependencies.
 *
 * Security defaults: every value goes in with `textContent` or SVG attributes, never as HTML;
 * the runs are read with the key typed into the page's key box (status-page.ts), when there is one.
 */
import { errorText, type ErrorBody } from "./error-text";
import { keyBox, keyHeaders } from "./page-key";

/** A run as `/api/runs` lists it (src/app/runs/run-store.ts `RunSummary`). */
interface RunSummary {
  id: string;
  startedAt: number;
  tool: string;
  outcome: string;
  durationMs: number;
  calls: number;
  failedCalls: number;
  caller: string;
  preview: string;
}

/** One call of a run, as `/api/runs/<id>` shows it (src/codemode/runs/run-record.ts `RunCall`). */
type RunCall =
  | {
      kind: "request";
      method: string;
      path: string;
      status?: number;
      ok: boolean;
      durationMs: number;
      error?: string;
    }
  | { kind: "tool"; name: string; ok: boolean; durationMs: number; error?: string };

/** A run as `/api/runs/<id>` shows it (src/codemode/runs/run-record.ts `RunRecord` and its caller). */
interface RunDetail {
  id: string;
  startedAt: number;
  tool: string;
  outcome: string;
  caller: string;
  server: string;
  durationMs: number;
  operations: number;
  hostCalls: number;
  resultBytes: number;
  error?: { name: string; message: string };
  code: string;
  calls: RunCall[];
  droppedCalls: number;
  logs: { level: string; message: string }[];
  result: string;
}

const SVG = "http://www.w3.org/2000/svg";
const COLORS: Record<string, string> = {
  ok: "#2e9d57",
  error: "#d03b4f",
  timeout: "#d98c1f",
  limit: "#8d5bd1",
};

/**
 * The page element `id`, which must be a `type` (the console's HTML is ours: a missing one is a
 * bug in console-section.ts, said at once rather than as a null dereference later).
 */
function $<T extends Element>(id: string, type: abstract new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type))
    throw new Error(`run console: #${id} is missing or not a ${type.name}`);
  return node;
}

let runs: RunSummary[] = [];
let next: string | undefined;

const el = (tag: string, text?: unknown, cls?: string): HTMLElement => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
};

const svg = (tag: string, attrs: Record<string, string | number>, text?: unknown): SVGElement => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
};

const ms = (n: number): string =>
  n >= 1000 ? (n / 1000).toFixed(1) + " s" : Math.round(n) + " ms";
const time = (t: number): string => new Date(t).toLocaleString();
/** `1 host call`, `2 host calls`: a count with its noun in the right number. */
const count = (n: number, noun: string): string => n + " " + noun + (n === 1 ? "" : "s");

async function load(more: boolean): Promise<void> {
  const status = $("runs-status", HTMLElement);
  const table = $("runs-table", HTMLTableElement);
  const query = new URLSearchParams({ limit: "100" });
  const tool = $("runs-tool", HTMLSelectElement).value;
  const outcome = $("runs-outcome", HTMLSelectElement).value;
  if (tool) query.set("tool", tool);
  if (outcome) query.set("outcome", outcome);
  if (more && next) query.set("cursor", next);
  status.textContent = "loading…";
  table.dataset.state = "loading";
  try {
    const response = await fetch("/api/runs?" + query, { headers: keyHeaders() });
    const data = (await response.json()) as { runs: RunSummary[]; nextCursor?: string } & ErrorBody;
    if (!response.ok) throw new Error(errorText(data, response.status));
    runs = more ? runs.concat(data.runs) : data.runs;
    next = data.nextCursor;
    $("runs-more", HTMLButtonElement).hidden = !next;
    render();
    status.textContent = count(runs.length, "run");
    table.dataset.state = "loaded";
  } catch (error) {
    status.textContent = String((error as Error).message || error);
    table.dataset.state = "error";
  }
}

function render(): void {
  const body = $("runs-table", HTMLTableElement).tBodies[0];
  if (!body) return;
  body.replaceChildren();
  for (const run of runs) {
    const row = el("tr");
    row.dataset.id = run.id;
    row.append(
      el("td", time(run.startedAt)),
      el("td", run.tool),
      el("td", run.outcome, "o-" + run.outcome),
      el("td", ms(run.durationMs)),
      el("td", run.calls + (run.failedCalls ? " (" + run.failedCalls + " failed)" : "")),
      el("td", run.caller),
      el("td", run.preview),
    );
    row.addEventListener("click", () => void detail(run.id));
    body.append(row);
  }
  durations();
  outcomes();
}

// The y axis sits at x = 64: room for a label such as "12,345 ms" right-aligned before it
// (at 40, a three-digit label lost its first digit to the chart's left edge).
function axes(chart: SVGSVGElement, maxY: number, label: (n: number) => string | number): void {
  chart.append(svg("line", { x1: 64, y1: 160, x2: 510, y2: 160, stroke: "#bbb" }));
  chart.append(svg("line", { x1: 64, y1: 10, x2: 64, y2: 160, stroke: "#bbb" }));
  chart.append(svg("text", { x: 60, y: 16, "text-anchor": "end", class: "axis-max" }, label(maxY)));
  chart.append(svg("text", { x: 60, y: 162, "text-anchor": "end" }, label(0)));
}

function durations(): void {
  const chart = $("chart-durations", SVGSVGElement);
  chart.replaceChildren();
  const points = runs.toSorted((a, b) => a.startedAt - b.startedAt);
  const maxY = Math.max(1, ...points.map((r) => r.durationMs));
  axes(chart, maxY, ms);
  const [first, last] = [points[0], points[points.length - 1]];
  if (!first || !last) return;
  const t0 = first.startedAt;
  const span = Math.max(1, last.startedAt - t0);
  const x = (r: RunSummary) => (points.length === 1 ? 287 : 69 + ((r.startedAt - t0) / span) * 436);
  const y = (r: RunSummary) => 160 - (r.durationMs / maxY) * 145;
  chart.append(
    svg("polyline", {
      points: points.map((r) => x(r).toFixed(1) + "," + y(r).toFixed(1)).join(" "),
      fill: "none",
      stroke: "#9bb4e8",
      "stroke-width": 1.5,
    }),
  );
  for (const r of points) {
    const dot = svg("circle", {
      cx: x(r),
      cy: y(r),
      r: 3.5,
      fill: COLORS[r.outcome] || "#555",
      class: "point",
    });
    dot.append(svg("title", {}, r.tool + " · " + r.outcome + " · " + ms(r.durationMs)));
    chart.append(dot);
  }
  chart.append(svg("text", { x: 69, y: 178 }, time(t0)));
  chart.append(svg("text", { x: 505, y: 178, "text-anchor": "end" }, time(last.startedAt)));
}

function outcomes(): void {
  const chart = $("chart-outcomes", SVGSVGElement);
  chart.replaceChildren();
  const tools = ["search", "execute", "code"];
  const counts = tools.map((tool) => {
    const mine = runs.filter((r) => r.tool === tool);
    return Object.keys(COLORS).map((o) => mine.filter((r) => r.outcome === o).length);
  });
  const maxY = Math.max(1, ...counts.map((c) => c.reduce((a, b) => a + b, 0)));
  axes(chart, maxY, (n) => n);
  tools.forEach((tool, i) => {
    let top = 160;
    // Bars end by x = 370, the legend starts at 420: they never overlap.
    const x = 90 + i * 110;
    Object.keys(COLORS).forEach((outcome, j) => {
      const n = counts[i]?.[j];
      if (!n) return;
      const h = (n / maxY) * 145;
      top -= h;
      const bar = svg("rect", {
        x,
        y: top,
        width: 60,
        height: h,
        fill: COLORS[outcome] ?? "#555",
        class: "bar",
        "data-tool": tool,
        "data-outcome": outcome,
      });
      bar.append(svg("title", {}, tool + ": " + n + " " + outcome));
      chart.append(bar);
    });
    chart.append(svg("text", { x: x + 30, y: 176, "text-anchor": "middle" }, tool));
  });
  Object.entries(COLORS).forEach(([outcome, color], j) => {
    chart.append(
      svg("rect", { x: 420, y: 14 + j * 15, width: 10, height: 10, fill: color, class: "legend" }),
    );
    chart.append(svg("text", { x: 435, y: 23 + j * 15 }, outcome));
  });
}

async function detail(id: string): Promise<void> {
  const section = $("run-detail", HTMLElement);
  section.hidden = false;
  section.dataset.state = "loading";
  const response = await fetch("/api/runs/" + encodeURIComponent(id), { headers: keyHeaders() });
  const run = (await response.json()) as RunDetail & ErrorBody;
  if (!response.ok) {
    $("run-title", HTMLElement).textContent = errorText(run, response.status);
    section.dataset.state = "error";
    return;
  }
  $("run-title", HTMLElement).textContent =
    run.tool + " · " + run.outcome + " · " + time(run.startedAt);
  $("run-facts", HTMLElement).textContent = [
    "caller " + run.caller,
    "server " + run.server,
    ms(run.durationMs),
    count(run.operations, "operation"),
    count(run.hostCalls, "host call"),
    count(run.resultBytes, "result byte"),
    run.error ? run.error.name + ": " + run.error.message : "",
  ]
    .filter(Boolean)
    .join(" · ");
  $("run-program", HTMLOListElement).replaceChildren(
    ...run.code.split("\n").map((line) => el("li", line)),
  );
  const calls = $("run-calls", HTMLTableElement).tBodies[0];
  if (calls) {
    calls.replaceChildren(
      ...run.calls.map((c, i) => {
        const row = el("tr");
        row.append(
          el("td", i + 1),
          el("td", c.kind === "request" ? c.method + " " + c.path : c.name),
          el(
            "td",
            c.kind === "request" ? (c.status ?? "—") : c.ok ? "ok" : "error",
            c.ok ? "o-ok" : "o-error",
          ),
          el("td", c.durationMs),
          el("td", c.error || ""),
        );
        return row;
      }),
    );
    if (run.droppedCalls)
      calls.append(el("tr", "… " + count(run.droppedCalls, "more call") + " not kept"));
  }
  $("run-logs", HTMLElement).textContent =
    run.logs.map((l) => (l.level === "log" ? "" : "[" + l.level + "] ") + l.message).join("\n") ||
    "(none)";
  $("run-result", HTMLElement).textContent = run.result;
  section.dataset.state = "loaded";
  section.dataset.id = run.id;
}

$("runs-form", HTMLFormElement).addEventListener("submit", (event) => {
  event.preventDefault();
  void load(false);
});
$("runs-more", HTMLButtonElement).addEventListener("click", () => void load(true));
if (!keyBox()) void load(false);
else {
  // The runs need a key: say so where the charts would be, not as two empty boxes.
  for (const id of ["chart-durations", "chart-outcomes"])
    $(id, SVGSVGElement).append(
      svg(
        "text",
        { x: 260, y: 95, "text-anchor": "middle", class: "hint" },
        "Enter the API key at the top of the page, then Load runs",
      ),
    );
}
