// Swagger 2.0 conversion and OpenAPI 3.1 specifics when loading a spec.
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { validateRequest } from "../../../src/openapi/validate-request";
import { oasExample } from "./fixtures";

describe("Swagger 2.0", () => {
  const spec = loadSpec(oasExample("2.0/json/petstore.json"));

  it("is converted to the OpenAPI 3 shape", () => {
    expect(spec.compact.version).toBe("2.0");
    expect(spec.compact.servers[0]!.url).toBe("http://petstore.swagger.io/v2");
    const add = spec.operationById("addPet")!;
    expect(add).toMatchObject({ method: "post", path: "/pet" });
    expect(add.parameters).toBeUndefined();
    const doc = spec.document() as any;
    const body = doc.paths["/pet"].post.requestBody;
    expect(body.required).toBe(true);
    expect(body.content["application/json"].schema.required).toEqual(["name", "photoUrls"]);
    const find = doc.paths["/pet/findByStatus"].get;
    expect(find.parameters[0]).toMatchObject({ name: "status", in: "query", required: true });
    expect(find.parameters[0].schema.type).toBe("array");
    const ok = find.responses["200"].content["application/json"].schema;
    expect(ok.items.properties.name.type).toBe("string");
  });

  it("converts formData parameters into a form request body", () => {
    const doc = spec.document() as any;
    const upload = doc.paths["/pet/{petId}/uploadImage"].post;
    const form = upload.requestBody.content["multipart/form-data"].schema;
    expect(form.properties.file).toMatchObject({ type: "string", format: "binary" });
    expect(upload.parameters.map((p: any) => p.name)).toEqual(["petId"]);
  });

  it("validates requests against converted operations (base path optional)", () => {
    expect(validateRequest(spec, { method: "GET", path: "/v2/pet/12" }).ok).toBe(true);
    const bad = validateRequest(spec, { method: "POST", path: "/pet", body: { name: 3 } });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? "" : bad.message).toContain("addPet");
  });
});

describe("OpenAPI 3.1", () => {
  it("loads petstore and schema-types with 3.1 keywords", () => {
    const spec = loadSpec(oasExample("3.1/json/petstore.json"));
    expect(spec.compact.version).toBe("3.1");
    expect(spec.operationById("addPet")).toBeDefined();
    const types = loadSpec(oasExample("3.1/json/schema-types.json"));
    expect(types.operations.length).toBeGreaterThan(0);
    expect(() => JSON.stringify(types.document())).not.toThrow();
  });

  it("lets reference siblings override the target (3.1 $ref with description)", () => {
    const spec = loadSpec({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      components: {
        schemas: {
          Id: { type: "string", description: "generic" },
          Thing: {
            type: "object",
            properties: { id: { $ref: "#/components/schemas/Id", description: "the thing's id" } },
          },
        },
      },
    });
    const thing = spec.resolver().resolve("#/components/schemas/Thing") as any;
    expect(thing.properties.id).toEqual({ type: "string", description: "the thing's id" });
  });
});
