import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/open-api-spec";
import { oasExample } from "./fixtures";

const CIRCULAR = [
  "3.0/json/circular.json",
  "3.0/json/circular-paths.json",
  "3.0/json/circular-request-bodies.json",
  "3.0/json/schema-circular.json",
  "2.0/json/schema-circular.json",
];

describe("cyclic specs (@readme/oas-examples)", () => {
  it.each(CIRCULAR)("%s searches without blowing up and marks cycles", (file) => {
    const spec = loadSpec(oasExample(file));
    expect(spec.compact.cycles.length).toBeGreaterThan(0);
    const text = JSON.stringify(spec.document());
    expect(text.length).toBeLessThan(2_000_000);
    expect(text).toMatch(/"\$circular":"#\/components\/schemas\/[^"]+"/);
  });

  it("marks a self-reference one level down, keeping the fields around it", () => {
    const spec = loadSpec(oasExample("3.0/json/circular.json"));
    const doc = spec.document() as any;
    const schema = doc.paths["/anything"].get.responses["404"].content["application/json"].schema;
    expect(schema.properties.statusCode).toEqual({ type: "integer", format: "int32" });
    expect(schema.properties.inner).toEqual({ $circular: "#/components/schemas/ErrorMessage" });
  });

  it("expands a cycle member the same way wherever it is reached (memoized per context)", () => {
    const spec = loadSpec({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: {
        "/a": {
          get: {
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } },
          B: {
            type: "object",
            properties: {
              a: { $ref: "#/components/schemas/A" },
              c: { $ref: "#/components/schemas/C" },
            },
          },
          C: { type: "string" },
        },
      },
    });
    expect(spec.compact.cycles).toEqual([["#/components/schemas/A", "#/components/schemas/B"]]);
    const resolver = spec.resolver();
    const a = resolver.resolve("#/components/schemas/A") as any;
    expect(a.properties.b.properties.a).toEqual({ $circular: "#/components/schemas/A" });
    const b = resolver.resolve("#/components/schemas/B") as any;
    expect(b.properties.a.properties.b).toEqual({ $circular: "#/components/schemas/B" });
    // C is outside every cycle: one shared view wherever it is reached.
    expect(b.properties.c).toBe(a.properties.b.properties.c);
    expect(JSON.parse(JSON.stringify(a))).toEqual({
      type: "object",
      properties: {
        b: {
          type: "object",
          properties: { a: { $circular: "#/components/schemas/A" }, c: { type: "string" } },
        },
      },
    });
  });
});
