// The real Cloudflare API spec (4.2 MB, 1,533 operations) loaded, indexed and searched in Node.
import { beforeAll, describe, expect, it } from "vitest";
import { loadSpec, type OpenApiSpec } from "../../../src/openapi/openapi-spec";
import { compileSpec } from "../../../src/openapi/compile-spec";
import { cloudflareSpec } from "./fixtures";

let spec: OpenApiSpec;
beforeAll(() => {
  spec = loadSpec(cloudflareSpec());
});

/** What a `search` program typically does first: flatten paths into a list of operations. */
function flatten(doc: any): { method: string; path: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
}

describe("Cloudflare API spec (4.2 MB, 1,533 operations)", () => {
  it("indexes every operation and path", () => {
    expect(spec.operations).toHaveLength(1533);
    expect(new Set(spec.operations.map((o) => o.path)).size).toBe(965);
    expect(spec.compact.version).toBe("3.0");
    // The one self-referencing schema of the spec is the only cycle.
    expect(spec.compact.cycles).toEqual([["#/components/schemas/request-tracer_trace"]]);
  });

  it("finds the rulesets operations", () => {
    const ops = flatten(spec.document()).filter(({ path }) => path.includes("/rulesets"));
    expect(ops.length).toBeGreaterThanOrEqual(30);
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids).toContain("listZoneRulesets");
    expect(ids).toContain("createZoneRuleset");
    expect(ops.every(({ op }) => typeof op.summary === "string")).toBe(true);
  });

  it("finds the DNS-records operations under /zones/{zone_id}", () => {
    const ops = flatten(spec.document()).filter(({ path }) =>
      path.startsWith("/zones/{zone_id}/dns_records"),
    );
    const listed = ops.map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(listed).toContain("GET /zones/{zone_id}/dns_records");
    expect(listed).toContain("POST /zones/{zone_id}/dns_records");
    expect(listed).toContain("PATCH /zones/{zone_id}/dns_records/{dns_record_id}");
    expect(listed).toContain("GET /zones/{zone_id}/dns_records/export");
    expect(ops.every(({ op }) => op.tags.includes("DNS Records for a Zone"))).toBe(true);
  });

  it("looks an operation up by operationId with resolved parameters and request body", () => {
    const raw = spec.operationById("dns-records-for-a-zone-create-dns-record")!;
    expect(raw).toMatchObject({ method: "post", path: "/zones/{zone_id}/dns_records" });
    const op = spec.document().paths as any;
    const view = op["/zones/{zone_id}/dns_records"].post;
    expect(view.parameters[0]).toMatchObject({ name: "zone_id", in: "path", required: true });
    expect(view.parameters[0].schema).toMatchObject({ type: "string", maxLength: 32 });
    const body = view.requestBody.content["application/json"].schema;
    expect(body.oneOf.length).toBeGreaterThan(10);
    const aRecord = body.oneOf[0];
    expect(aRecord.title).toBe("A Record");
    expect(aRecord.required).toEqual(["type", "name", "content"]);
    expect(aRecord.allOf[0].properties.type.enum).toEqual(["A"]);
    expect(aRecord.allOf[0].properties.name).toMatchObject({ type: "string", maxLength: 255 });
  });

  it("counts operations per tag", () => {
    const counts = new Map<string, number>();
    for (const { op } of flatten(spec.document())) {
      for (const tag of op.tags ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    expect(counts.size).toBe(289);
    expect(counts.get("Radar Attacks")).toBe(41);
    expect(counts.get("DNS Records for a Zone")).toBeGreaterThanOrEqual(8);
  });

  it("resolves lazily: one operation stays small, the whole document would be 23 MB", () => {
    // The work is counted, not timed: `document(tick)` ticks once per value it materializes (the
    // sandbox's operation budget counts the same ticks).
    let oneOp = 0;
    const doc = spec.document(() => oneOp++) as any;
    const op = doc.paths["/zones/{zone_id}/dns_records"].post;
    const opSize = JSON.stringify(op).length;
    expect(opSize).toBeGreaterThan(10_000);
    expect(opSize).toBeLessThan(200_000);
    // Materializing everything is possible (cycles are marked) and shows what laziness saves.
    let all = 0;
    const full = JSON.stringify(spec.document(() => all++));
    // One operation read whole: ~2,100 materializations of the document's ~400,000.
    expect(oneOp).toBeGreaterThan(0);
    expect(oneOp).toBeLessThan(all / 100);
    expect(full.length).toBeGreaterThan(20_000_000);
    expect(full).toContain('"$circular":"#/components/schemas/request-tracer_trace"');
    // The compact form keeps refs as refs: about the size of the source.
    expect(JSON.stringify(spec.compact).length).toBeLessThan(5_000_000);
  });

  it("returns fresh, mutable views per document() call and shares read-only targets within one", () => {
    const a = spec.document() as any;
    const b = spec.document() as any;
    a.paths["/zones/{zone_id}/dns_records"].post.summary = "edited";
    expect(b.paths["/zones/{zone_id}/dns_records"].post.summary).toBe("Create DNS Record");
    const post = a.paths["/zones/{zone_id}/dns_records"].post;
    const patch = a.paths["/zones/{zone_id}/dns_records/{dns_record_id}"].patch;
    expect(post.parameters[0].schema).toBe(patch.parameters[0].schema);
    // Shared, so read-only: a change to one place can never show at the other (issue #42).
    expect(() => (post.parameters[0].schema.maxLength = 1)).toThrow(TypeError);
    expect(patch.parameters[0].schema.maxLength).toBe(32);
  });

  it("loads a compact spec without re-checking or re-indexing", () => {
    const compact = JSON.parse(JSON.stringify(compileSpec(cloudflareSpec())));
    // What the load reads of the compact spec, by top-level field: a check or an index would
    // read its operations (no time asserted: it is the reads that say what the load did).
    const read: string[] = [];
    const watched = new Proxy(compact, {
      get: (target, key, receiver) => {
        if (typeof key === "string") read.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    const loaded = loadSpec(watched);
    expect(read).toEqual(["format"]);
    // Used as it came, not compiled again.
    expect(loaded.compact).toBe(watched);
    expect(loaded.operations).toHaveLength(1533);
  });

  it("normalizes lower-case response ranges (4xx → 4XX)", () => {
    const op = spec.operationById("dns-records-for-a-zone-create-dns-record")!;
    expect(Object.keys(op.responses!)).toEqual(["200", "4XX"]);
  });
});
