/**
 * A small notes API as an OpenAPI document, for suites that drive `openApiMcpServer` against an
 * in-test upstream (approval binding in test/workers/codemode, `execute` as a task in
 * test/workers/mcp). One copy, so the suites exercise the same operations: a POST with a JSON
 * or plain-text body, and a DELETE with a path parameter.
 */

/** The notes API: `POST /notes` (createNote) and `DELETE /notes/{id}` (deleteNote). */
export const NOTES_SPEC = {
  openapi: "3.0.3",
  info: { title: "Notes", version: "1.0.0" },
  paths: {
    "/notes": {
      post: {
        operationId: "createNote",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", properties: { text: { type: "string" } } },
            },
            "text/plain": { schema: { type: "string" } },
          },
        },
        responses: { "201": { description: "created" } },
      },
    },
    "/notes/{id}": {
      delete: {
        operationId: "deleteNote",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "204": { description: "deleted" } },
      },
    },
  },
};
