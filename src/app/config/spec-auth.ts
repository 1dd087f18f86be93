/**
 * Whether a spec describes any authentication: a missing `API_TOKEN` is worth a warning only for
 * an API that expects credentials. Read from the document as the Worker or the launcher has it
 * (a compact spec or the source: OpenAPI 3 `components.securitySchemes`, Swagger 2
 * `securityDefinitions`); operation-level requirements name those schemes, so they are enough.
 */

/**
 * @param doc - a parsed spec (compact or source)
 * @returns true when it defines at least one security scheme
 */
export function specDefinesAuth(doc: unknown): boolean {
  if (typeof doc !== "object" || doc === null) return false;
  const { components, securityDefinitions } = doc as {
    components?: { securitySchemes?: unknown };
    securityDefinitions?: unknown;
  };
  return [components?.securitySchemes, securityDefinitions].some(
    (schemes) => typeof schemes === "object" && schemes !== null && Object.keys(schemes).length > 0,
  );
}
