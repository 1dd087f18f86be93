/**
 * The run console's browser script (inlined by console-section.ts): loads `/api/runs`, fills
 * the table, draws the two charts as SVG and shows a run's detail on click. Plain ES2020, no
 * dependencies; every value goes in with `textContent` or SVG attributes, never as HTML.
 */

/** The script's source (kept free of backticks and template placeholders on purpose). */
export const CONSOLE_SCRIPT = String.raw`
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const COLORS = { ok: "#2e9d57", error: "#d03b4f", timeout: "#d98c1f", limit: "#8d5bd1" };
  let runs = [];
  let next;
  const headers = () => {
    // The page's one key box (status-page.ts), present when the runs need a token.
    const key = $("page-key");
    return key && key.value ? { authorization: "Bearer " + key.value } : {};
  };
  const el = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  };
  const svg = (tag, attrs, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  };
  const ms = (n) => (n >= 1000 ? (n / 1000).toFixed(1) + " s" : Math.round(n) + " ms");
  const time = (t) => new Date(t).toLocaleString();

  async function load(more) {
    const status = $("runs-status");
    const table = $("runs-table");
    const query = new URLSearchParams({ limit: "100" });
    if ($("runs-tool").value) query.set("tool", $("runs-tool").value);
    if ($("runs-outcome").value) query.set("outcome", $("runs-outcome").value);
    if (more && next) query.set("cursor", next);
    status.textContent = "loading…";
    table.dataset.state = "loading";
    try {
      const response = await fetch("/api/runs?" + query, { headers: headers() });
      const data = await response.json();
      if (!response.ok) throw new Error(data.error ? data.error.message + " Fix: " + data.error.fix : "HTTP " + response.status);
      runs = more ? runs.concat(data.runs) : data.runs;
      next = data.nextCursor;
      $("runs-more").hidden = !next;
      render();
      status.textContent = runs.length + " runs";
      table.dataset.state = "loaded";
    } catch (error) {
      status.textContent = String(error.message || error);
      table.dataset.state = "error";
    }
  }

  function render() {
    const body = $("runs-table").tBodies[0];
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
      row.addEventListener("click", () => detail(run.id));
      body.append(row);
    }
    durations();
    outcomes();
  }

  // The y axis sits at x = 64: room for a label such as "12,345 ms" right-aligned before it
  // (at 40, a three-digit label lost its first digit to the chart's left edge).
  function axes(chart, maxY, label) {
    chart.append(svg("line", { x1: 64, y1: 160, x2: 510, y2: 160, stroke: "#bbb" }));
    chart.append(svg("line", { x1: 64, y1: 10, x2: 64, y2: 160, stroke: "#bbb" }));
    chart.append(svg("text", { x: 60, y: 16, "text-anchor": "end", class: "axis-max" }, label(maxY)));
    chart.append(svg("text", { x: 60, y: 162, "text-anchor": "end" }, label(0)));
  }

  function durations() {
    const chart = $("chart-durations");
    chart.replaceChildren();
    const points = runs.slice().sort((a, b) => a.startedAt - b.startedAt);
    const maxY = Math.max(1, ...points.map((r) => r.durationMs));
    axes(chart, maxY, ms);
    if (points.length === 0) return;
    const t0 = points[0].startedAt;
    const span = Math.max(1, points[points.length - 1].startedAt - t0);
    const x = (r) => (points.length === 1 ? 287 : 69 + ((r.startedAt - t0) / span) * 436);
    const y = (r) => 160 - (r.durationMs / maxY) * 145;
    chart.append(svg("polyline", {
      points: points.map((r) => x(r).toFixed(1) + "," + y(r).toFixed(1)).join(" "),
      fill: "none", stroke: "#9bb4e8", "stroke-width": 1.5,
    }));
    for (const r of points) {
      const dot = svg("circle", { cx: x(r), cy: y(r), r: 3.5, fill: COLORS[r.outcome] || "#555", class: "point" });
      dot.append(svg("title", {}, r.tool + " · " + r.outcome + " · " + ms(r.durationMs)));
      chart.append(dot);
    }
    chart.append(svg("text", { x: 69, y: 178 }, time(t0)));
    chart.append(svg("text", { x: 505, y: 178, "text-anchor": "end" }, time(points[points.length - 1].startedAt)));
  }

  function outcomes() {
    const chart = $("chart-outcomes");
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
        const n = counts[i][j];
        if (!n) return;
        const h = (n / maxY) * 145;
        top -= h;
        const bar = svg("rect", { x, y: top, width: 60, height: h, fill: COLORS[outcome], class: "bar", "data-tool": tool, "data-outcome": outcome });
        bar.append(svg("title", {}, tool + ": " + n + " " + outcome));
        chart.append(bar);
      });
      chart.append(svg("text", { x: x + 30, y: 176, "text-anchor": "middle" }, tool));
    });
    Object.entries(COLORS).forEach(([outcome, color], j) => {
      chart.append(svg("rect", { x: 420, y: 14 + j * 15, width: 10, height: 10, fill: color, class: "legend" }));
      chart.append(svg("text", { x: 435, y: 23 + j * 15 }, outcome));
    });
  }

  async function detail(id) {
    const section = $("run-detail");
    section.hidden = false;
    section.dataset.state = "loading";
    const response = await fetch("/api/runs/" + encodeURIComponent(id), { headers: headers() });
    const run = await response.json();
    if (!response.ok) {
      $("run-title").textContent = run.error && run.error.fix ? run.error.message + " Fix: " + run.error.fix : "HTTP " + response.status;
      section.dataset.state = "error";
      return;
    }
    $("run-title").textContent = run.tool + " · " + run.outcome + " · " + time(run.startedAt);
    $("run-facts").textContent = [
      "caller " + run.caller, "server " + run.server, ms(run.durationMs),
      run.operations + " operations", run.hostCalls + " host calls",
      run.resultBytes + " result bytes", run.error ? run.error.name + ": " + run.error.message : "",
    ].filter(Boolean).join(" · ");
    $("run-program").replaceChildren(...run.code.split("\n").map((line) => el("li", line)));
    const calls = $("run-calls").tBodies[0];
    calls.replaceChildren(...run.calls.map((c, i) => {
      const row = el("tr");
      row.append(
        el("td", i + 1),
        el("td", c.kind === "request" ? c.method + " " + c.path : c.name),
        el("td", c.kind === "request" ? (c.status ?? "—") : (c.ok ? "ok" : "error"), c.ok ? "o-ok" : "o-error"),
        el("td", c.durationMs),
        el("td", c.error || ""),
      );
      return row;
    }));
    if (run.droppedCalls) calls.append(el("tr", "… " + run.droppedCalls + " more calls not kept"));
    $("run-logs").textContent = run.logs.map((l) => (l.level === "log" ? "" : "[" + l.level + "] ") + l.message).join("\n") || "(none)";
    $("run-result").textContent = run.result;
    section.dataset.state = "loaded";
    section.dataset.id = run.id;
  }

  $("runs-form").addEventListener("submit", (event) => { event.preventDefault(); load(false); });
  $("runs-more").addEventListener("click", () => load(true));
  if (!$("page-key")) load(false);
  else {
    // The runs need a key: say so where the charts would be, not as two empty boxes.
    for (const id of ["chart-durations", "chart-outcomes"])
      $(id).append(svg("text", { x: 260, y: 95, "text-anchor": "middle", class: "hint" }, "Enter the API key at the top of the page, then Load runs"));
  }
})();
`;
