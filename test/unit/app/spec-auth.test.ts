// Whether a spec expects credentials: what decides the missing-API_TOKEN note (issue #42).
import { describe, expect, it } from "vitest";
import { specDefinesAuth } from "../../../src/app/config/spec-auth";

describe("specDefinesAuth", () => {
  it.each([
    [{ components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } } }, true],
    [{ securityDefinitions: { key: { type: "apiKey", in: "header", name: "X-Key" } } }, true],
    [{ components: { securitySchemes: {} }, paths: {} }, false],
    [{ components: { schemas: { A: {} } } }, false],
    [{}, false],
    [null, false],
  ])("%j → %s", (doc, expected) => {
    expect(specDefinesAuth(doc)).toBe(expected);
  });
});
