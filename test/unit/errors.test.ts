// The error policy (src/errors.ts): the codes pinned, every throw in src/ following it, the sandbox
// family's names, and JSON-RPC error responses built by one helper.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../sandbox/ext-request";
import { LimitError } from "../../sandbox/runtime";
import { RequestRefusedError } from "../../src/codemode/request/api-request";
import { UpstreamToolError } from "../../src/codemode/upstream/upstream-result";
import { HTTP_ERROR_CODES } from "../../src/app/errors/http-error";
import {
  CodeModeError,
  ERROR_CODES,
  jsonRpcError,
  PROTOCOL_CODES,
  SANDBOX_ERRORS,
  SandboxError,
  sandboxErrorsLine,
} from "../../src/errors";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sources(path);
    return (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) ||
      entry.name.endsWith(".mjs")
      ? [path]
      : [];
  });
}

/** Source text without comments, so documentation may mention codes and shapes. */
function code(file: string): string {
  return readFileSync(join(ROOT, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
}

const SRC = sources("src").filter((f) => f !== "src/errors.ts");
/** The local server's Node front, which answers a few requests itself (in the HTTP error shape). */
const FRONT = [
  "cli/local-server/front/front.mjs",
  "cli/local-server/front/request-body.mjs",
  "cli/local-server/front/exchange.mjs",
  "cli/local-server/front/cut-off-reply.mjs",
  "cli/local-server/front/front-api-key.mjs",
  "cli/local-server/front/connection-cap.mjs",
  "cli/local-server/front/long-wait.mjs",
  // The Host rule the front shares with the Worker (plain JavaScript for the front's sake).
  "src/app/config/host-names.mjs",
];

/** The codes listed in a table of docs/errors.md: the first cell of each row, in backticks. */
function documentedCodes(): Set<string> {
  const doc = readFileSync(join(ROOT, "docs/errors.md"), "utf8");
  return new Set([...doc.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((m) => m[1]!));
}

/**
 * Throws in src/ that are not a CodeModeError, each with why: a wrong argument from sandbox code
 * gets the JavaScript TypeError any API would throw.
 */
const OTHER_THROWS: Record<string, number> = {
  "src/codemode/openapi-mcp-server.ts": 1, // codemode.operation("unknown id") from sandbox code
  "src/codemode/code-mcp-server.ts": 3, // an unknown tool, invalid input, a credential spread in input
  "src/codemode/skills/skill-run.ts": 1, // invalid input to a skill from sandbox code
  // a write into a shared, read-only `$ref` view from sandbox code: the TypeError a frozen
  // object throws, with the fix (copy first)
  "src/openapi/lazy-view.ts": 1,
  // a read past a packed spec's index opened without a `missing` (the sandbox's extension
  // always passes one, which ends the run): a bug of ours if ever thrown
  "src/openapi/spec-pack.ts": 1,
  // the redaction map's own invariant (sequences added in order): a bug of ours if ever thrown,
  // never reachable by a program's input
  "src/codemode/redaction/sequence-map.ts": 1,
  // what a run sends, checked for the credential: the LimitError a program meets past its
  // budget (a SandboxError, the run's own outcome), and the run's end stopping a queued check
  "src/codemode/request/sent-check.ts": 2,
  // a redirect of the upstream MCP server to another origin: the NetworkError a failed fetch
  // rejects with (network-error.ts), so the upstream's client reports it as one
  "src/codemode/upstream/same-origin-redirects.ts": 1,
  "src/mcp/tasks/task-support.ts": 1, // SDK v2 ProtocolError: a JSON-RPC error the SDK answers
  "src/mcp/tasks/legacy-task-support.ts": 2, // the same, on the 2025 lane (task support refusals)
  // a lost runner, every runner retiring for the whole retry window, a run given up on (its
  // timeout, a cancel) before any runner began it, a run its runner gave up past its timeout, or
  // the loaded worker's own failure, thrown as the Worker Loader throws its failures: the
  // executors turn each into the run's SandboxError outcome
  "src/executor/runners/runner-loader.ts": 5,
  // a caller whose runs may use no free runner (too many waiting, or waited too long), thrown
  // the same way from the loader's caller queue
  "src/executor/runners/placement/caller-queue.ts": 2,
  // a runner RPC call without this launch's cluster secret: refused as a Workers RPC method
  // throws, to a caller that is not the host (no CodeModeError crosses to a stranger)
  "src/executor/runners/sandbox-runner.ts": 1,
  // a program nested past MAX_BRACE_DEPTH: thrown from acorn's onToken to end the parse at
  // once, and caught around the parse, which answers the program's SyntaxError
  "src/executor/prepare-code.ts": 1,
};

describe("error policy", () => {
  it("pins the CodeModeError codes, one line each", () => {
    expect(Object.keys(ERROR_CODES).toSorted()).toEqual([
      "approvals_busy",
      "code_too_long",
      "elicitation_timeout",
      "elicitation_unsupported",
      "invalid_elicitation",
      "invalid_event",
      "invalid_limits",
      "invalid_option",
      "invalid_query",
      "invalid_server",
      "namespace_invalid",
      "not_sqlite",
      "not_supported",
      "secret_too_short",
      "server_connected",
      "skill_invalid",
      "skills_too_long",
      "spec_invalid",
      "stream_closed",
      "task_conflict",
      "task_not_found",
      "unsupported_option",
      "upstream_headers_failed",
      "upstream_invalid",
      "upstream_unreachable",
    ]);
    for (const line of Object.values(ERROR_CODES)) expect(line).toMatch(/^[a-zA-Z][^\n]{10,100}$/);
  });

  it("uses every code somewhere in src/ (no dead codes)", () => {
    const all = SRC.map(code).join("\n");
    const unused = Object.keys(ERROR_CODES).filter((c) => !all.includes(`"${c}"`));
    expect(unused).toEqual([]);
  });

  it("throws only CodeModeError in src/, but for the listed sandbox-facing TypeErrors", () => {
    const found: Record<string, number> = {};
    for (const file of SRC) {
      const n = [...code(file).matchAll(/throw new (?!CodeModeError\b)(\w*Error)\(/g)].filter(
        (m) => !["RequestRefusedError", "UpstreamToolError", "HttpError"].includes(m[1]!),
      ).length;
      if (n > 0) found[file] = n;
    }
    expect(found).toEqual(OTHER_THROWS);
  });

  it("docs/errors.md lists every CodeModeError code and every HTTP error code", () => {
    const listed = documentedCodes();
    const missing = [...Object.keys(ERROR_CODES), ...Object.keys(HTTP_ERROR_CODES)].filter(
      (c) => !listed.has(c),
    );
    expect(missing).toEqual([]);
  });

  it("lists every code an HTTP error answer can carry, and uses every listed one", () => {
    const fromSrc = SRC.map(code).join("\n");
    const fromFront = FRONT.map(code).join("\n");
    // The Node front writes the shape by hand (it cannot import the Worker's TypeScript).
    const frontCodes = [
      ...new Set([...fromFront.matchAll(/\bcode: "([a-z_]+)"/g)].map((m) => m[1]!)),
    ];
    expect(frontCodes.toSorted()).toEqual([
      "body_timeout",
      "body_too_large",
      "forbidden_host",
      "invalid_host",
      "invalid_request",
      "runtime_restarted",
      "server_busy",
      "server_starting",
      "unauthorized",
    ]);
    for (const c of frontCodes) expect(Object.keys(HTTP_ERROR_CODES)).toContain(c);
    const unused = Object.keys(HTTP_ERROR_CODES).filter(
      (c) => !fromSrc.includes(`"${c}"`) && !frontCodes.includes(c),
    );
    expect(unused).toEqual([]);
    for (const line of Object.values(HTTP_ERROR_CODES))
      expect(line).toMatch(/^[a-zA-Z/][^\n]{10,100}$/);
  });

  it("a CodeModeError carries its code and cause", () => {
    const cause = new Error("root");
    const error = new CodeModeError("invalid_option", "bad", { cause });
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "CodeModeError",
      "invalid_option",
      "bad",
      cause,
    ]);
  });

  it("names the errors a sandbox program can catch as SANDBOX_ERRORS says", () => {
    const reply = { status: 404, ok: false, headers: {}, body: null };
    const names = [
      new ApiError("m", reply).name,
      new RequestRefusedError("m").name,
      new SandboxError("NetworkError", "m").name, // src/app/network-error.ts (needs workerd)
      new UpstreamToolError("m").name,
      new LimitError("m").name,
    ];
    expect(names).toEqual(Object.keys(SANDBOX_ERRORS));
    expect(sandboxErrorsLine(["LimitError"])).toBe(
      `Errors you can catch (by .name): LimitError (${SANDBOX_ERRORS.LimitError}).`,
    );
  });

  it("docs/errors.md lists every error name a program can catch, and the product sets no other", () => {
    // Every error name the product gives an error it throws or builds: a class's own name, a
    // SandboxError's, or a plain Error renamed. Not listed here, it would reach a program (or a
    // caller) undocumented, as NetworkError once did.
    const texts = [...SRC, "src/errors.ts", ...sources("sandbox")].map(code).join("\n");
    const named = new Set(
      [
        ...texts.matchAll(/\.name = "([A-Za-z]+Error)"/g),
        ...texts.matchAll(/super\("([A-Za-z]+Error)"/g),
        ...texts.matchAll(/new SandboxError\(\s*"([A-Za-z]+)"/g),
      ].map((m) => m[1]!),
    );
    // Not a program's to catch: host-side errors (sections 1 and 4) and the platform's own
    // names, which the sandbox gives its polyfills as the platform does.
    const elsewhere = ["CodeModeError", "HttpError", "RangeError", "InvalidCharacterError"];
    const unlisted = [...named].filter(
      (name) => !elsewhere.includes(name) && !Object.hasOwn(SANDBOX_ERRORS, name),
    );
    expect(unlisted).toEqual([]);
    expect(named).toContain("NetworkError");
    const doc = readFileSync(join(ROOT, "docs/errors.md"), "utf8");
    const section = doc.slice(doc.indexOf("## 2."), doc.indexOf("## 3."));
    const documented = [...section.matchAll(/^\| `([A-Za-z]+)` +\|/gm)].map((m) => m[1]!);
    expect(documented.toSorted()).toEqual(Object.keys(SANDBOX_ERRORS).toSorted());
    for (const name of elsewhere.slice(0, 2)) expect(doc).toContain(`\`${name}\``);
  });

  it("pins the JSON-RPC protocol codes and builds error responses with them", async () => {
    expect(PROTOCOL_CODES).toEqual({
      parseError: -32700,
      invalidRequest: -32600,
      methodNotFound: -32601,
      invalidParams: -32602,
      internalError: -32603,
      serverError: -32000,
      sessionNotFound: -32001,
    });
    const response = jsonRpcError(404, PROTOCOL_CODES.sessionNotFound, "Session not found", 7);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found" },
      id: 7,
    });
  });

  it("builds no JSON-RPC error body by hand and writes no protocol code as a number in src/", () => {
    const offenders = SRC.filter((file) => {
      const text = code(file);
      return /jsonrpc: "2\.0",\s*error/.test(text) || /(?<![\w.])-32[0-9]{3}\b/.test(text);
    });
    // push-elicitation reads SDK v1's own local codes by name (SDK_V1_…), not ours.
    expect(offenders).toEqual(["src/mcp/sessions/agent/push-elicitation.ts"]);
  });
});
