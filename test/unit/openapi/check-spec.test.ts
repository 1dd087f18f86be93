// checkSpec: the run-time structural check of a spec document.
import { describe, expect, it } from "vitest";
import { CodeModeError } from "../../../src/errors";
import { checkSpec, findSpecProblems } from "../../../src/openapi/check-spec";
import { loadSpec } from "../../../src/openapi/openapi-spec";

const base = { openapi: "3.0.3", info: { title: "t", version: "1" } };

describe("run-time structural check", () => {
  it("accepts a minimal spec", () => {
    expect(findSpecProblems({ ...base, paths: {} })).toEqual([]);
  });

  it("names the pointer and the rule of each problem", () => {
    const problems = findSpecProblems({
      ...base,
      paths: {
        "/pets/{id}": {
          get: { operationId: "getPet", parameters: [{ name: "q", in: "querry" }] },
        },
        "/owners": { post: { operationId: "getPet", responses: {}, requestBody: {} } },
      },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { pointer: "#/paths/~1pets~1{id}/get", message: `required object "responses" is missing` },
        {
          pointer: "#/paths/~1pets~1{id}/get/parameters/0",
          message: `parameter "in" must be one of path, query, header, cookie`,
        },
        {
          pointer: "#/paths/~1pets~1{id}/get",
          message: `path parameter "id" of "/pets/{id}" is not declared in "parameters"`,
        },
        {
          pointer: "#/paths/~1owners/post/operationId",
          message: `duplicate operationId "getPet" (also at #/paths/~1pets~1{id}/get)`,
        },
        {
          pointer: "#/paths/~1owners/post/requestBody",
          message: `required object "content" is missing`,
        },
      ]),
    );
  });

  it("reports refs that point nowhere or outside the document, where they are", () => {
    const problems = findSpecProblems({
      ...base,
      paths: {
        "/a": {
          get: {
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "#/components/schemas/Nope" } } },
              },
              "201": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "other.yaml#/X" } } },
              },
            },
          },
        },
      },
    });
    expect(problems).toContainEqual({
      pointer: "#/paths/~1a/get/responses/200/content/application~1json/schema",
      message: `$ref "#/components/schemas/Nope" points to nothing`,
    });
    const external = problems.find((p) => p.message.startsWith("external $ref"));
    expect(external?.pointer).toBe(
      "#/paths/~1a/get/responses/201/content/application~1json/schema",
    );
    // The fix names the shipped command, never a build script a library user does not have.
    expect(external?.message).toContain("npx code-mode-mcp init <folder> --spec FILE");
    expect(external?.message).not.toContain("scripts/");
  });

  it("refuses unknown versions and non-objects", () => {
    expect(findSpecProblems({ openapi: "4.0.0" })[0]!.pointer).toBe("#/openapi");
    expect(findSpecProblems([])[0]!.message).toContain("JSON object");
  });

  it("throws CodeModeError spec_invalid from checkSpec and loadSpec", () => {
    let error: unknown;
    try {
      checkSpec({ ...base, paths: { pets: {} } }, "pets.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodeModeError);
    expect((error as CodeModeError).code).toBe("spec_invalid");
    expect((error as Error).message).toContain("(pets.json)");
    expect((error as Error).message).toContain(`#/paths/pets: path "pets" must start with "/"`);
    expect(() => loadSpec("{not json")).toThrow(
      /not valid JSON.*code-mode-mcp init <folder> --spec FILE/,
    );
    expect(() => loadSpec("{not json")).not.toThrow(/scripts\//);
  });
});
