/**
 * The demo API's HTTP routes (specs/demo-api.yaml), served inside the demo Durable Object.
 * Paths are relative to the API base (`/projects`, `/tasks/3/comments`); the Worker strips its
 * `/demo-api` prefix before handing the request over.
 *
 * Errors are the product's one HTTP error (src/app/errors/http-error.ts): `{ error: { code, message, fix } }`
 * with 400, 404 or 405, rendered by the same renderer as every other route.
 */
import { HttpError, renderHttpError } from "../errors/http-error";
import { cappedBodyText } from "../errors/capped-body";
import { DemoDb } from "./demo-db";
import { DEMO_FIX, DEMO_MAX_BODY_BYTES } from "./demo-body-limit";
import {
  checkBody,
  ENUMS,
  enumParam,
  intParam,
  invalidRequest,
  type FieldRule,
} from "./demo-validation";

const PROJECT_FIELDS: Record<string, FieldRule> = {
  name: { type: "string", min: 1, max: 200 },
  description: { type: "string", max: 2000 },
  status: { type: "string", max: 20, enum: ENUMS.projectStatus! },
};

const TASK_FIELDS: Record<string, FieldRule> = {
  title: { type: "string", min: 1, max: 200 },
  description: { type: "string", max: 2000 },
  status: { type: "string", max: 20, enum: ENUMS.taskStatus! },
  priority: { type: "string", max: 20, enum: ENUMS.priority! },
  assignee: { type: "string", max: 100, nullable: true },
  dueDate: { type: "date", nullable: true },
};

const COMMENT_FIELDS: Record<string, FieldRule> = {
  author: { type: "string", min: 1, max: 100 },
  body: { type: "string", min: 1, max: 4000 },
};

/**
 * Serves one demo API request.
 * @param request - method, path relative to the API base, query and JSON body
 * @param db - the store's tables
 */
export async function handleDemoApi(request: Request, db: DemoDb): Promise<Response> {
  try {
    return await route(request, db);
  } catch (error) {
    return renderHttpError(error);
  }
}

async function route(request: Request, db: DemoDb): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method;
  const parts = url.pathname.split("/").filter(Boolean);
  const query = url.searchParams;
  const page = () => ({
    limit: intParam(query.get("limit"), "limit", 100) ?? 20,
    cursor: intParam(query.get("cursor"), "cursor"),
  });
  const [collection, rawId, sub] = parts;

  if (collection === "projects" && rawId === undefined) {
    if (method === "GET") {
      const { limit, cursor } = page();
      const filters = {
        status: enumParam(query, "status", ENUMS.projectStatus!),
        q: query.get("q") ?? undefined,
      };
      return Response.json(db.listProjects(filters, limit, cursor));
    }
    if (method === "POST")
      return Response.json(
        db.createProject(checkBody(await body(request), PROJECT_FIELDS, ["name"])),
        { status: 201 },
      );
    return notAllowed(method, "GET, POST");
  }
  if (collection === "projects" && sub === undefined) {
    const id = intParam(rawId!, "projectId")!;
    if (method === "GET") return Response.json(found(db.getProject(id), "project", id));
    if (method === "PATCH") {
      const patch = checkBody(await body(request), PROJECT_FIELDS, [], 1);
      return Response.json(found(db.updateProject(id, patch), "project", id));
    }
    if (method === "DELETE") return deleted(db.deleteProject(id), "project", id);
    return notAllowed(method, "GET, PATCH, DELETE");
  }
  if (collection === "tasks" && rawId === undefined) {
    if (method === "GET") {
      const { limit, cursor } = page();
      const filters = {
        projectId: intParam(query.get("projectId"), "projectId"),
        status: enumParam(query, "status", ENUMS.taskStatus!),
        priority: enumParam(query, "priority", ENUMS.priority!),
        assignee: query.get("assignee") ?? undefined,
        q: query.get("q") ?? undefined,
      };
      return Response.json(db.listTasks(filters, limit, cursor));
    }
    if (method === "POST") {
      const input = checkBody(
        await body(request),
        { projectId: { type: "integer" }, ...TASK_FIELDS },
        ["projectId", "title"],
      );
      if (!db.getProject(input.projectId as number))
        throw invalidRequest(
          `"projectId": no project with id ${String(input.projectId)}.`,
          "projectId",
        );
      return Response.json(db.createTask(input), { status: 201 });
    }
    return notAllowed(method, "GET, POST");
  }
  if (collection === "tasks" && sub === undefined) {
    const id = intParam(rawId!, "taskId")!;
    if (method === "GET") return Response.json(found(db.getTask(id), "task", id));
    if (method === "PATCH") {
      const patch = checkBody(await body(request), TASK_FIELDS, [], 1);
      return Response.json(found(db.updateTask(id, patch), "task", id));
    }
    if (method === "DELETE") return deleted(db.deleteTask(id), "task", id);
    return notAllowed(method, "GET, PATCH, DELETE");
  }
  if (collection === "tasks" && sub === "comments" && parts.length === 3) {
    const id = intParam(rawId!, "taskId")!;
    found(db.getTask(id), "task", id);
    if (method === "GET") {
      const { limit, cursor } = page();
      return Response.json(db.listComments(id, limit, cursor));
    }
    if (method === "POST")
      return Response.json(
        db.addComment(id, checkBody(await body(request), COMMENT_FIELDS, ["author", "body"])),
        { status: 201 },
      );
    return notAllowed(method, "GET, POST");
  }
  if (collection === "comments" && rawId !== undefined && sub === undefined) {
    const id = intParam(rawId, "commentId")!;
    if (method === "DELETE") return deleted(db.deleteComment(id), "comment", id);
    return notAllowed(method, "DELETE");
  }
  throw new HttpError(
    404,
    "not_found",
    `No route ${method} ${url.pathname}.`,
    "See specs/demo-api.yaml for the routes (search the spec with the search tool).",
  );
}

async function body(request: Request): Promise<unknown> {
  const text = await cappedBodyText(request, DEMO_MAX_BODY_BYTES, DEMO_FIX);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("The body must be valid JSON.");
  }
}

function found<T>(value: T | undefined, what: string, id: number): T {
  if (value === undefined) throw notFound(what, id);
  return value;
}

function deleted(ok: boolean, what: string, id: number): Response {
  if (!ok) throw notFound(what, id);
  return new Response(null, { status: 204 });
}

function notFound(what: string, id: number): HttpError {
  return new HttpError(
    404,
    "not_found",
    `No ${what} with id ${id}.`,
    what === "comment"
      ? "List a task's comments (GET /tasks/{taskId}/comments) and use an id from there."
      : `List the ${what}s (GET /${what}s) and use an id from there.`,
  );
}

function notAllowed(method: string, allow: string): never {
  throw new HttpError(
    405,
    "method_not_allowed",
    `${method} is not allowed here.`,
    `Use ${allow}.`,
    {
      allow,
    },
  );
}
