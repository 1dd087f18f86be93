/**
 * The one HTTP error of the product's routes (src/app/errors/http-error.ts, issue #31): every error
 * path of every product route, exercised through the real Worker, answers with the same body
 * shape `{ error: { code, message, fix } }` (or the same three on the HTML page for a browser),
 * and the codes seen are the ones HTTP_ERROR_CODES lists. The MCP endpoints' JSON-RPC errors
 * are the protocol's and are not listed here; the Node front's 408/413/503 are in
 * test/unit/cli/front/front.test.ts.
 */
import { describe, expect, it } from "vitest";
import { HTTP_ERROR_CODES, HttpError, renderHttpError } from "../../../src/app/errors/http-error";
import { compileSpec } from "../../../src/openapi/compile-spec";
import { captureConsole } from "../../helpers/console-capture";
import { authorizeQuery, pkce, REDIRECT_URI } from "../../helpers/clients/oauth-client";
import { configured, json, type WorkerFetch } from "./helpers";

const OWN = JSON.stringify(
  compileSpec({
    openapi: "3.0.3",
    info: { title: "Own", version: "1" },
    servers: [{ url: "https://api.example.com" }],
    paths: { "/x": { get: { operationId: "getX", responses: { "200": { description: "ok" } } } } },
  }),
);
const MCP_POST: RequestInit = {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
};
const KEY = "http-errors-test-key-0123456789";

/** One error path: which Worker, which request, the status and code expected. */
type Case = [
  label: string,
  worker: WorkerFetch,
  url: string,
  init: RequestInit,
  status: number,
  code: string,
];

const demo = configured({});
const broken = configured({ SPEC: "nope" });
const keyed = configured({ MCP_API_KEY: KEY });
const auth = { authorization: `Bearer ${KEY}` };

const CASES: Case[] = [
  ["unknown route", demo, "http://localhost/nope", {}, 404, "not_found"],
  [
    "host not allowed",
    demo,
    "http://evil.example/health",
    { headers: { host: "evil.example" } },
    403,
    "forbidden_host",
  ],
  ["/health, bad configuration", broken, "http://localhost/health", {}, 503, "misconfigured"],
  ["/mcp, bad configuration", broken, "http://localhost/mcp", MCP_POST, 503, "misconfigured"],
  ["/mcp without the API key", keyed, "http://localhost/mcp", MCP_POST, 401, "unauthorized"],
  [
    "/demo-api with a wrong API key",
    keyed,
    "http://localhost/demo-api/projects",
    { headers: { authorization: "Bearer wrong-key-0123456789" } },
    401,
    "unauthorized",
  ],
  [
    "/mcp/code off",
    configured({ SPEC: "own" }, { own: OWN }),
    "http://localhost/mcp/code",
    MCP_POST,
    404,
    "code_endpoint_off",
  ],
  ["/api/search GET", demo, "http://localhost/api/search", {}, 405, "method_not_allowed"],
  [
    "/api/search too large",
    demo,
    "http://localhost/api/search",
    { method: "POST", body: JSON.stringify({ code: "x".repeat(200_000) }) },
    413,
    "body_too_large",
  ],
  [
    "/api/search not a program",
    demo,
    "http://localhost/api/search",
    { method: "POST", body: "{}" },
    400,
    "invalid_request",
  ],
  [
    "/api/runs POST",
    keyed,
    "http://localhost/api/runs",
    { method: "POST", headers: auth },
    405,
    "method_not_allowed",
  ],
  ["/api/runs bad query", demo, "http://localhost/api/runs?limit=0", {}, 400, "invalid_request"],
  [
    "/api/runs unknown run",
    demo,
    "http://localhost/api/runs/2026-01-01.0000000000000000.abc",
    {},
    404,
    "not_found",
  ],
  ["/api/runs off", configured({ RUNS: "off" }), "http://localhost/api/runs", {}, 404, "runs_off"],
  [
    "/api/runs private",
    configured({ API_BASE_URL: "http://127.0.0.1:9/api", FORWARD_CALLER_TOKEN: "on" }),
    "http://localhost/api/runs",
    {},
    403,
    "runs_private",
  ],
  ["/demo-api unknown route", demo, "http://localhost/demo-api/nope", {}, 404, "not_found"],
  [
    "/demo-api unknown project",
    demo,
    "http://localhost/demo-api/projects/999999",
    {},
    404,
    "not_found",
  ],
  [
    "/demo-api method",
    demo,
    "http://localhost/demo-api/projects",
    { method: "PUT" },
    405,
    "method_not_allowed",
  ],
  [
    "/demo-api bad body",
    demo,
    "http://localhost/demo-api/projects",
    json("POST", { name: 1 }),
    400,
    "invalid_request",
  ],
  [
    "/demo-api bad query",
    demo,
    "http://localhost/demo-api/tasks?status=weird",
    {},
    400,
    "invalid_request",
  ],
];

/** The shape of a JSON body: its keys, nested, with the type of each leaf. */
function shapeOf(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value;
  if (Array.isArray(value)) return `[${value.map(shapeOf).join(",")}]`;
  const entries = Object.entries(value).toSorted(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([k, v]) => `${k}:${shapeOf(v)}`).join(",")}}`;
}

describe("the one HTTP error", () => {
  it("is the only error shape of every product route's error paths, with listed codes", async () => {
    const shapes = new Set<string>();
    const seen = new Set<string>();
    for (const [label, worker, url, init, status, code] of CASES) {
      const response = await worker(url, init);
      expect(response.status, label).toBe(status);
      expect(response.headers.get("content-type"), label).toContain("application/json");
      const body = (await response.json()) as {
        error: { code: string; message: string; fix: string };
      };
      shapes.add(shapeOf(body));
      expect(body.error.code, label).toBe(code);
      expect(body.error.message.length, label).toBeGreaterThan(10);
      expect(body.error.fix.length, label).toBeGreaterThan(10);
      seen.add(code);
    }
    expect([...shapes]).toEqual(["{error:{code:string,fix:string,message:string}}"]);
    for (const code of seen) expect(Object.keys(HTTP_ERROR_CODES)).toContain(code);
  });

  it("refuses an /api/search body past the shape limit unparsed, naming it (issue #40)", async () => {
    const deep = `{"code":${"[".repeat(30_000)}${"]".repeat(30_000)}}`;
    const response = await demo("http://localhost/api/search", { method: "POST", body: deep });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("invalid_request");
    expect(error.message).toMatch(/nests 30,001 levels deep/);
  });

  it("answers a body past the shape limit that is not JSON as not JSON, on /api/search and the import", async () => {
    // Before: the shape refusal, as if less nesting would make the text JSON.
    const notJson = `{"code":${"[".repeat(30_000)}${"]".repeat(29_999)}}`;
    const search = await demo("http://localhost/api/search", { method: "POST", body: notJson });
    expect(search.status).toBe(400);
    expect((await search.json()) as unknown).toMatchObject({
      error: { code: "invalid_request", message: expect.stringMatching(/^The body is not JSON/) },
    });
    const imported = await demo("http://localhost/api/skills/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: notJson,
    });
    expect(imported.status).toBe(400);
    expect((await imported.json()) as unknown).toMatchObject({
      error: { code: "invalid_request", message: "The body is not JSON." },
    });
  });

  it("carries the headers its status needs (Allow, WWW-Authenticate)", async () => {
    const notAllowed = await demo("http://localhost/demo-api/projects", { method: "PUT" });
    expect(notAllowed.headers.get("allow")).toBe("GET, POST");
    const search = await demo("http://localhost/api/search");
    expect(search.headers.get("allow")).toBe("POST");
    const refused = await keyed("http://localhost/mcp", MCP_POST);
    expect(refused.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("answers a browser's page navigation with the HTML page of the same error", async () => {
    const response = await demo("http://localhost/nope", { headers: { accept: "text/html,*/*" } });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("text/html");
    const page = await response.text();
    expect(page).toContain("Nothing is served at /nope.");
    expect(page).toContain("Fix: Use /mcp");
    expect(page).toContain("<code>not_found</code>");
  });

  it("answers a failing route with 500 internal_error, never with what the failure said", async () => {
    const errors = captureConsole("error");
    const response = renderHttpError(new Error("token sk-live-do-not-show failed"));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: "internal_error" } });
    expect(text).not.toContain("sk-live");
    expect(errors()).toContain("sk-live-do-not-show");
    expect(renderHttpError(new HttpError(418, "not_found", "m", "f")).status).toBe(418);
  });

  it("renders the OAuth consent page's errors as the HTML page: bad request, wrong passphrase, locked", async () => {
    const worker = configured({ OAUTH: "on", OAUTH_PASSWORD: "correct horse battery staple" });
    const bad = await worker("http://localhost/authorize?client_id=nobody");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("<code>invalid_authorization</code>");

    const registered = await worker("http://localhost/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Errors client",
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: "none",
      }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const { challenge } = await pkce();
    const url = `http://localhost/authorize?${authorizeQuery(client_id, challenge, { state: "s" })}`;
    const guess = () =>
      worker(url, {
        method: "POST",
        headers: { "cf-connecting-ip": "192.0.2.31" },
        body: new URLSearchParams({ user: "x", passphrase: "wrong" }),
      });
    const wrong = await guess();
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("content-type")).toContain("text/html");
    const page = await wrong.text();
    expect(page).toContain("Wrong passphrase.");
    expect(page).toContain("<code>wrong_passphrase</code>");
    for (let i = 0; i < 4; i++) await guess();
    const locked = await guess();
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await locked.text()).toContain("<code>too_many_attempts</code>");
  });
});
