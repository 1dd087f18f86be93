// The HTTP API the hostile e2e points `/mcp` at: a small OpenAPI spec and a Node server that
// records every request it receives and, on `/echo`, sends the credential back in every
// encoding a careless API might (JSON with \u escapes, UTF-16 text, raw bytes, a header name);
// on `/echo-forms/{index}`, in each of the one- and two-layer encodings of
// test/helpers/redaction/credential-echoes.ts (HTML references, percent-encoded twice, base32, UTF-32, …).
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../cli/local-server/free-port.mjs";

/** The spec's paths (anything else the server receives is a request outside the spec). */
export const SPEC_PATHS = /^\/(items(\/[A-Za-z0-9_.~%-]+)?|echo|echo-forms\/\d+)(\?.*)?$/;

/**
 * The echoes the vitest suites use (one layer, then two), each with the decoder a program would
 * apply. Loaded as TypeScript (Node 22 strips the types); the specifier is computed so the
 * typecheck does not ask for `.ts` imports in scripts.
 * @type {import("../../helpers/redaction/credential-echoes").CredentialEcho[]}
 */
export const ECHOES = await (async () => {
  const echoes = await import(
    new URL("../../helpers/redaction/credential-echoes.ts", import.meta.url).href
  );
  return [...echoes.SINGLE_LAYER, ...echoes.TWO_LAYERS];
})();

const spec = {
  openapi: "3.0.3",
  info: { title: "Hostile e2e API", version: "1.0.0" },
  paths: {
    "/items": {
      get: { operationId: "listItems", responses: { 200: { description: "Items" } } },
      post: {
        operationId: "createItem",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["name"],
                properties: { name: { type: "string", pattern: "^(a+)+$" } },
              },
            },
          },
        },
        responses: { 201: { description: "Created" } },
      },
    },
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "getItem", responses: { 200: { description: "An item" } } },
      delete: { operationId: "deleteItem", responses: { 204: { description: "Deleted" } } },
    },
    "/echo": {
      get: {
        operationId: "echo",
        parameters: [
          {
            name: "as",
            in: "query",
            required: true,
            schema: { type: "string", enum: ["json", "utf16", "binary", "header", "text"] },
          },
        ],
        responses: { 200: { description: "The request's credential, echoed" } },
      },
    },
    "/echo-forms/{index}": {
      get: {
        operationId: "echoForm",
        parameters: [{ name: "index", in: "path", required: true, schema: { type: "integer" } }],
        responses: { 200: { description: "The request's credential in encoding `index`" } },
      },
    },
  },
};

/**
 * Starts the API and writes its spec.
 * @returns {Promise<{ baseUrl: string, specFile: string, seen: { method: string, url: string, authorization?: string }[], close: () => void }>}
 */
export async function startHostileApi() {
  /** @type {{ method: string, url: string, authorization?: string }[]} */
  const seen = [];
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    seen.push({ method: req.method ?? "", url: req.url ?? "", authorization: auth });
    const token = auth.replace(/^Bearer /, "");
    const url = new URL(req.url ?? "/", "http://x");
    const form = /^\/echo-forms\/(\d+)$/.exec(url.pathname);
    const echo = form ? ECHOES[Number(form[1])] : undefined;
    if (echo) {
      const body = echo.body(token);
      res.setHeader("content-type", echo.contentType);
      // The same text in a header too, when a header can carry it.
      if (typeof body === "string" && /^[\x20-\x7e]*$/.test(body)) res.setHeader("x-echo", body);
      return res.end(typeof body === "string" ? body : Buffer.from(body));
    }
    if (url.pathname !== "/echo") {
      res.statusCode = req.method === "POST" ? 201 : req.method === "DELETE" ? 204 : 200;
      res.setHeader("content-type", "application/json");
      return res.end(req.method === "DELETE" ? undefined : JSON.stringify({ ok: true }));
    }
    switch (url.searchParams.get("as")) {
      case "json": {
        // Every character \u-escaped: a textual search of the body cannot find it.
        const escaped = [...auth].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
        res.setHeader("content-type", "application/json");
        return res.end(`{"token":"${escaped.join("")}"}`);
      }
      case "utf16":
        res.setHeader("content-type", "text/plain; charset=utf-16le");
        return res.end(Buffer.from(auth, "utf16le"));
      case "binary":
        res.setHeader("content-type", "application/octet-stream");
        return res.end(Buffer.from(`\u0000${auth}\u0000`));
      case "header":
        res.setHeader(`x-echo-${token}`, "1");
        return res.end();
      default:
        res.setHeader("content-type", "text/plain");
        return res.end(auth);
    }
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(undefined)));
  const dir = mkdtempSync(join(tmpdir(), "codemode-hostile-"));
  const specFile = join(dir, "hostile-api.json");
  writeFileSync(specFile, JSON.stringify(spec, null, 2));
  return { baseUrl: `http://127.0.0.1:${port}`, specFile, seen, close: () => server.close() };
}
