// The pure spec and declaration layers import and run inside workerd (no Node APIs, no eval).
import circular from "@readme/oas-examples/3.0/json/circular.json";
import petstore from "@readme/oas-examples/3.0/json/petstore.json";
import swagger from "@readme/oas-examples/2.0/json/petstore.json";
import { describe, expect, it } from "vitest";
import { SpecDeclarations } from "../../../src/declarations/spec-declarations";
import { toolDeclarations } from "../../../src/declarations/tool-declarations";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { validateRequest } from "../../../src/openapi/validate-request";

describe("spec layer inside workerd", () => {
  it("loads, indexes and resolves specs lazily with cycle markers", () => {
    const spec = loadSpec(structuredClone(circular));
    const doc = spec.document() as any;
    const schema = doc.paths["/anything"].get.responses["404"].content["application/json"].schema;
    expect(schema.properties.inner).toEqual({ $circular: "#/components/schemas/ErrorMessage" });
    const converted = loadSpec(structuredClone(swagger));
    expect(converted.operationById("addPet")?.requestBody).toBeDefined();
  });

  it("round-trips the compact form as JSON text and validates requests", () => {
    const compact = JSON.stringify(loadSpec(structuredClone(petstore)).compact);
    const spec = loadSpec(compact);
    expect(validateRequest(spec, { method: "GET", path: "/pet/12" }).ok).toBe(true);
    const bad = validateRequest(spec, { method: "POST", path: "/pet", body: { name: 1 } });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? "" : bad.message).toContain("addPet");
    const missing = validateRequest(spec, { method: "GET", path: "/nope" });
    expect(missing.ok ? "" : missing.code).toBe("unknown_path");
  });

  it("emits declarations for operations and tools", () => {
    const spec = loadSpec(structuredClone(petstore));
    const text = new SpecDeclarations(spec.compact).operation(
      spec.operationById("getPetById")!,
    ).text;
    expect(text).toContain("interface GetPetByIdRequest");
    expect(text).toContain("path: `/pet/${string}`;");
    const tools = toolDeclarations([
      {
        name: "echo",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        },
      },
    ]);
    expect(tools.text).toContain("echo(input: EchoInput): Promise<unknown>;");
  });
});
