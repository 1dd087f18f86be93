// PathMatcher: templated OpenAPI paths matched against concrete request paths.
import { describe, expect, it } from "vitest";
import { PathMatcher } from "../../../src/openapi/path-matcher";

describe("PathMatcher", () => {
  const m = new PathMatcher<string>();
  m.add("/zones/{zone_id}/dns_records", "list");
  m.add("/zones/{zone_id}/dns_records/{dns_record_id}", "one");
  m.add("/zones/{zone_id}/dns_records/export", "export");
  m.add("/zones/{zone_identifier}/custom_pages", "pages");
  m.add("/files/{name}.{ext}", "file");
  m.add("/", "root");

  it("matches templates, extracting decoded params", () => {
    expect(m.match("/zones/z%201/dns_records/r1")).toEqual({
      template: "/zones/{zone_id}/dns_records/{dns_record_id}",
      value: "one",
      params: { zone_id: "z 1", dns_record_id: "r1" },
    });
    expect(m.match("/zones/z/custom_pages")?.params).toEqual({ zone_identifier: "z" });
    expect(m.match("/files/report.json")?.params).toEqual({ name: "report", ext: "json" });
    expect(m.match("/")?.value).toBe("root");
    expect(m.match("/zones/z/dns_records/")?.value).toBe("list");
  });

  it("prefers literals and yields the other candidates after them", () => {
    expect([...m.matchAll("/zones/z/dns_records/export")].map((x) => x.value)).toEqual([
      "export",
      "one",
    ]);
  });

  it("finds the first candidate a caller accepts, with that candidate's own params", () => {
    const n = new PathMatcher<string>();
    n.add("/a/{x}/{y}", "params");
    n.add("/a/{x}/lit", "literal");
    n.add("/a/{other}/{y}/{z}", "deeper");
    expect(n.find("/a/1/lit", (v) => v === "params")).toEqual({
      template: "/a/{x}/{y}",
      value: "params",
      params: { x: "1", y: "lit" },
    });
    expect(n.find("/a/1/lit", () => true)?.value).toBe("literal");
    expect(n.find("/a/1/2/3", () => true)?.params).toEqual({ other: "1", y: "2", z: "3" });
    expect(n.find("/a/1/lit", () => false)).toBeUndefined();
  });

  it("does not match empty parameters or unknown paths", () => {
    expect(m.match("/zones//dns_records")).toBeUndefined();
    expect(m.match("/nope")).toBeUndefined();
  });
});
