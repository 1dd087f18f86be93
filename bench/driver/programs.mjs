/**
 * The model-written programs the benchmark sends, identical for both sides. `codemode.request()`
 * resolves to the response body on both (ours: the 2xx body, as the anchor), so the execute
 * programs are written as the seed documents write them.
 */

/** Five realistic search programs over the Cloudflare spec. */
export const SEARCH_PROGRAMS = [
  {
    name: "rulesets-ops",
    code: `async () => {
  const s = await codemode.spec();
  const out = [];
  for (const [p, ops] of Object.entries(s.paths)) {
    if (!p.endsWith("/rulesets")) continue;
    for (const [m, o] of Object.entries(ops)) if (o && o.operationId) out.push(m.toUpperCase() + " " + p + " " + o.operationId);
  }
  return out.sort();
}`,
  },
  {
    name: "dns-paths",
    code: `async () => {
  const s = await codemode.spec();
  return Object.keys(s.paths).filter((p) => p.startsWith("/zones/{zone_id}/dns_records")).sort();
}`,
  },
  {
    name: "operation-detail",
    code: `async () => {
  const s = await codemode.spec();
  for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) {
    if (o && o.operationId === "dns-records-for-a-zone-create-dns-record") {
      const schema = o.requestBody.content["application/json"].schema;
      return { params: o.parameters.map((p) => p.name + ":" + p.in), variants: schema.oneOf.length, summary: o.summary };
    }
  }
  return null;
}`,
  },
  {
    name: "tag-counts",
    code: `async () => {
  const s = await codemode.spec();
  const c = {};
  for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) for (const t of (o && o.tags) || []) c[t] = (c[t] || 0) + 1;
  return Object.entries(c).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 15);
}`,
  },
  {
    name: "workers-script-ops",
    code: `async () => {
  const s = await codemode.spec();
  const out = [];
  for (const [p, ops] of Object.entries(s.paths)) for (const [m, o] of Object.entries(ops)) {
    if (o && o.operationId && /worker script/i.test(o.summary || "")) out.push({ method: m.toUpperCase(), path: p, summary: o.summary });
  }
  return out.sort((a, b) => (a.path + a.method < b.path + b.method ? -1 : 1)).slice(0, 25);
}`,
  },
];

/**
 * An execute program making `n` requests, sequential or all at once.
 * @param {number} n
 * @param {boolean} [parallel]
 */
export function executeProgram(n, parallel = false) {
  const call = `(i) => codemode.request({ method: "GET", path: "/zones/zone" + i + "/dns_records" })`;
  return parallel
    ? `async () => { const rs = await Promise.all(Array.from({ length: ${n} }, ${call})); return rs.map((r) => r.result[0].id); }`
    : `async () => { const call = ${call}; const ids = []; for (let i = 0; i < ${n}; i++) ids.push((await call(i)).result[0].id); return ids; }`;
}

/**
 * An execute program timing `n` sequential requests from inside the sandbox, so the run's fixed
 * cost (isolate, spec, MCP), which varies by hundreds of ms for the anchor, stays out of the
 * per-request figure. Date.now() in workerd advances only across I/O: it reads the time of the
 * last event, so a clock read before any I/O returns when the run *started* and would count the
 * isolate's start-up as request time. One untimed request first moves the clock to now.
 * @param {number} n
 */
export function timedRequests(n) {
  return `async () => {
  const call = (i) => codemode.request({ method: "GET", path: "/zones/zone" + i + "/dns_records" });
  await call(-1);
  const t0 = Date.now();
  for (let i = 0; i < ${n}; i++) await call(i);
  return { perRequestMs: (Date.now() - t0) / ${n} };
}`;
}

/** An execute program chaining two dependent calls and filtering, as a model would. */
export const ZONES_THEN_RECORDS = `async () => {
  const zones = (await codemode.request({ method: "GET", path: "/zones" })).result.filter((z) => z.status === "pending").slice(0, 5);
  const out = [];
  for (const z of zones) out.push({ zone: z.name, records: (await codemode.request({ method: "GET", path: "/zones/" + z.id + "/dns_records" })).result.length });
  return out;
}`;

/** The trivial run used to ask "does the server still answer?". */
export const ALIVE = "async () => 1 + 1";
