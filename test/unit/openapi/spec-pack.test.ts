// Packed specs: a program decodes only what it reads of the Cloudflare spec.
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { openPackedSpec, packSpec } from "../../../src/openapi/spec-pack";
import { cloudflareSpec, oasExample } from "./fixtures";

function packedView(compact: ReturnType<typeof loadSpec>["compact"]) {
  const bytes = packSpec(compact);
  if (!bytes) throw new Error("not packable");
  return openPackedSpec(bytes) as any;
}

describe("packed specs", () => {
  it.each([
    "3.0/json/circular.json",
    "3.0/json/petstore.json",
    "2.0/json/petstore.json",
    "3.1/json/petstore.json",
  ])("read exactly like the plain document: %s", (file) => {
    const spec = loadSpec(oasExample(file));
    expect(JSON.parse(JSON.stringify(packedView(spec.compact)))).toEqual(
      JSON.parse(JSON.stringify(spec.document())),
    );
  });

  it("decode only what a program reads (Cloudflare spec)", () => {
    const spec = loadSpec(cloudflareSpec());
    const bytes = packSpec(spec.compact)!;
    const decodes = { count: 0 };
    const original = JSON.parse;
    JSON.parse = ((text: string, reviver?: never) => (
      decodes.count++,
      original(text, reviver)
    )) as typeof JSON.parse;
    try {
      const doc = openPackedSpec(bytes) as any;
      const index = Object.entries(doc.paths).flatMap(([p, ops]: [string, any]) =>
        Object.entries(ops).map(
          ([m, o]: [string, any]) =>
            `${m} ${p} ${o.operationId} ${o.summary} ${(o.tags ?? []).length}`,
        ),
      );
      expect(index).toHaveLength(1533);
      // The whole index costs one decode: the header.
      expect(decodes.count).toBe(1);
      const create = doc.paths["/zones/{zone_id}/dns_records"].post;
      expect(create.requestBody.content["application/json"].schema.oneOf.length).toBeGreaterThan(
        10,
      );
      expect(decodes.count).toBeLessThan(100);
    } finally {
      JSON.parse = original;
    }
    expect(bytes.byteLength).toBeLessThan(5 * 1024 * 1024);
  });
});
