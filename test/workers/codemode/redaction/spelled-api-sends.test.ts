/**
 * The second line for what a program sends to the API itself (issue #41): a program that
 * pieced the credential together (two halves from two answers: split across responses, which
 * no reading of one body catches) posts it to the API, spelled out (also as percent-encoded
 * UTF-16, base64 of that, UTF-16BE units read as little-endian, and with a NUL after each
 * character), in a body, a query or a path: an API that keeps
 * what it is sent (a public comment, a note) would publish it. The host
 * adds the credential to the request itself, so a request the program built never needs it:
 * such a request is refused with nothing sent. Runs on both executors.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { createMcpHandler } from "../../../../src/index";
import { ECHO_SECRET, holds } from "../../../helpers/redaction/credential-echoes";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const SPEC = {
  openapi: "3.0.3",
  info: { title: "Notes", version: "1" },
  paths: {
    "/halves/{index}": {
      get: {
        operationId: "half",
        parameters: [{ name: "index", in: "path", required: true, schema: { type: "integer" } }],
        responses: { "200": { description: "one half" } },
      },
    },
    "/notes": {
      post: {
        operationId: "postNote",
        parameters: [{ name: "tag", in: "query", schema: { type: "string" } }],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { note: { type: "string" }, items: { type: "array" } },
              },
            },
          },
        },
        responses: { "201": { description: "posted publicly" } },
      },
    },
    "/notes/{title}": {
      put: {
        operationId: "putNote",
        parameters: [{ name: "title", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "posted publicly" } },
      },
    },
  },
};

const PROGRAM = `async () => {
  const a = await codemode.request({ method: "GET", path: "/halves/0" });
  const b = await codemode.request({ method: "GET", path: "/halves/1" });
  const t = a.half + b.half;
  const chars = [...t];
  const spelled = [
    t,
    chars.map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(""),
    chars.join(" "),
    chars.join("\\u200b"),
    chars.map((c) => c.charCodeAt(0)).join(","),
    t.replace(/[a-z]/gi, (c) => { const base = c <= "Z" ? 65 : 97; return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base); }),
    chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join(""),
    chars.map((c) => c + "\\0").join(""),
    btoa(chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join("")),
    chars.map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join(""),
  ];
  const sends = [];
  for (const note of spelled) {
    sends.push({ method: "POST", path: "/notes", body: { note } });
    sends.push({ method: "POST", path: "/notes", query: { tag: note }, body: { note: "fine" } });
  }
  sends.push({ method: "POST", path: "/notes", body: { items: chars } });
  sends.push({ method: "PUT", path: "/notes/" + encodeURIComponent(t) });
  sends.push({ method: "POST", path: "/notes", rawBody: new TextEncoder().encode("note=" + chars.join(" ")), contentType: "text/plain" });
  sends.push({ method: "POST", path: "/notes", body: { note: "an ordinary note" } });
  const answers = [];
  for (const send of sends) {
    try {
      await codemode.request(send);
      answers.push("sent");
    } catch (error) {
      answers.push(String(error.message));
    }
  }
  return answers;
}`;

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  it("a recovered credential is sent to the API in no spelling, place or shape", async () => {
    const received: string[] = [];
    const halves = [ECHO_SECRET.slice(0, 11), ECHO_SECRET.slice(11)];
    const factory = openApiMcpServer({
      spec: SPEC,
      executor,
      secrets: [ECHO_SECRET],
      request: (request) => {
        const half = /^\/halves\/(\d)$/.exec(request.path);
        if (half) return { status: 200, body: { half: halves[Number(half[1])] } };
        received.push(JSON.stringify(request));
        return { status: request.method === "PUT" ? 200 : 201, body: { ok: true } };
      },
    });
    const client = await connect(createMcpHandler(factory));
    const result = await client.callTool({ name: "execute", arguments: { code: PROGRAM } });
    await client.close();
    const answers = JSON.parse(text(result)) as string[];
    // Every spelling, in the body and in the query, as an array of characters, in the path and in
    // raw bytes:
    // refused, saying why; the ordinary note is sent.
    expect(answers).toHaveLength(24);
    expect(answers.slice(0, 23).every((a) => a.includes("holds the credential"))).toBe(true);
    expect(answers.at(-1)).toBe("sent");
    const joined = received.join("\n");
    const readings = [
      joined,
      joined.normalize("NFKC"),
      joined.replace(/[\s\u200b]+/g, ""),
      joined.replace(/\d{2,3}(?:,\d{2,3}){7,}/g, (run) =>
        String.fromCharCode(...run.split(",").map(Number)),
      ),
    ];
    // UTF-16 percent-encoded (`%74%00…`, once more in a query) or with a NUL after each character.
    const unPercent = (t: string) =>
      t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    readings.push(unPercent(unPercent(joined)).replaceAll("\\u0000", "").replace(/\0/g, ""));
    // Base64 of that, and UTF-16BE units read as little-endian (`t` is U+7400).
    const unBase64 = (t: string) =>
      t.replace(/[A-Za-z0-9+/]{16,}={0,2}/g, (run) => {
        try {
          return atob(run);
        } catch {
          return run;
        }
      });
    readings.push(unPercent(unBase64(unPercent(joined))).replace(/\0/g, ""));
    readings.push(
      joined.replace(/[\u0100-\uff00]/g, (c) =>
        (c.charCodeAt(0) & 0xff) === 0 ? String.fromCharCode(c.charCodeAt(0) >> 8) : c,
      ),
    );
    expect(readings.some((r) => holds(r, ECHO_SECRET))).toBe(false);
    expect(received).toHaveLength(1);
  });
});
