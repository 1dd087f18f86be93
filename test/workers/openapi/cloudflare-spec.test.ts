// The real Cloudflare spec (4.2 MB, vendored and unpacked by `npm run fixtures`) inside workerd:
// load, index, lazy search, lookups, validation and a declaration, with timings bounded.
// `?raw` (text): typing a 4 MB JSON import would double the repository's typecheck time.
import cloudflareText from "#fixtures/cloudflare-api-2024-08-06.json?raw";
import { expect, it } from "vitest";
import { SpecDeclarations } from "../../../src/declarations/spec-declarations";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { validateRequest } from "../../../src/openapi/validate-request";

it("searches, validates and declares over the Cloudflare spec", () => {
  const started = Date.now();
  const spec = loadSpec(cloudflareText);
  expect(spec.operations).toHaveLength(1533);
  const doc = spec.document() as any;
  const dns = Object.keys(doc.paths).filter((p) => p.startsWith("/zones/{zone_id}/dns_records"));
  expect(dns).toContain("/zones/{zone_id}/dns_records");
  const op = doc.paths["/zones/{zone_id}/dns_records"].post;
  expect(op.requestBody.content["application/json"].schema.oneOf.length).toBeGreaterThan(10);
  const ok = validateRequest(spec, {
    method: "POST",
    path: "/zones/023e105f4ecef8ad9ca31a8372d0c353/dns_records",
    body: { type: "A", name: "example.com", content: "198.51.100.4" },
  });
  expect(ok.ok).toBe(true);
  const text = new SpecDeclarations(spec.compact).operation(
    spec.operationById("dns-records-for-a-zone-create-dns-record")!,
  ).text;
  expect(text).toContain("interface DnsRecordsForAZoneCreateDnsRecordRequest");
  expect(Date.now() - started).toBeLessThan(10_000);
});
