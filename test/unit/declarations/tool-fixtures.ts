// A fixture tool set covering what the emitter must handle: nested objects, enums, unions,
// arrays and tuples, optional fields, $ref/$defs (with recursion), output schemas, names that
// are not identifiers, and a name collision.
import type { ToolLike } from "../../../src/declarations/tool-declarations";

/** The contract's example upstream plus edge cases. */
export const FIXTURE_TOOLS: ToolLike[] = [
  {
    name: "list_projects",
    description: "List projects visible to the caller.",
    inputSchema: {
      type: "object",
      properties: {
        status: { type: "string", enum: ["active", "archived"], description: "Filter by status." },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
    },
    outputSchema: {
      type: "object",
      properties: {
        projects: { type: "array", items: { $ref: "#/$defs/Project" } },
        nextCursor: { type: ["string", "null"] },
      },
      required: ["projects"],
      $defs: {
        Project: {
          type: "object",
          description: "A project.",
          properties: {
            id: { type: "string" },
            name: { type: "string" },
            status: { enum: ["active", "archived"] },
            owner: {
              type: "object",
              properties: { id: { type: "string" }, email: { type: "string", format: "email" } },
              required: ["id"],
            },
          },
          required: ["id", "name", "status"],
        },
      },
    },
  },
  {
    name: "list_tasks",
    description: "List the tasks of a project.",
    inputSchema: {
      type: "object",
      properties: { projectId: { type: "string" } },
      required: ["projectId"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string" },
          title: { type: "string" },
          state: { oneOf: [{ const: "open" }, { const: "blocked" }, { const: "done" }] },
          blockedBy: { type: "array", items: { type: "string" } },
        },
        required: ["id", "title", "state"],
      },
    },
  },
  {
    name: "create-issue",
    title: "Create issue",
    description: "Create an issue.\nThe body supports */ markdown.",
    inputSchema: {
      type: "object",
      properties: {
        "repo name": { type: "string" },
        labels: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
        position: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] },
        assignee: {
          allOf: [
            { $ref: "#/definitions/User" },
            { type: "object", properties: { role: { const: "owner" } } },
          ],
        },
        metadata: { type: "object", additionalProperties: { type: "string" } },
        legacy: { type: "boolean", deprecated: true, description: "Old flag." },
      },
      required: ["repo name"],
      definitions: {
        User: { type: "object", properties: { login: { type: "string" } }, required: ["login"] },
      },
    },
  },
  {
    name: "tree",
    description: "Walk a tree (recursive input).",
    inputSchema: {
      type: "object",
      properties: {
        value: { type: "number" },
        children: { type: "array", items: { $ref: "#" } },
        nullable: { type: "string", nullable: true },
      },
      required: ["value"],
    },
  },
  {
    name: "create_issue",
    description: "Collides with create-issue.",
    inputSchema: { type: "object" },
  },
  {
    name: "delete",
    description: "A reserved word.",
    inputSchema: { type: "object", properties: {} },
  },
];
