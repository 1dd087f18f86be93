// canonicalPath: request paths normalised before matching and validation.
import { describe, expect, it } from "vitest";
import { canonicalPath, MAX_PATH_LENGTH } from "../../../src/openapi/canonical-path";
import { apiRequester } from "../../../src/codemode/api-requester";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { beyondStepBudget, countRegexRuns } from "../../helpers/regex-runs";

const canonical = (path: string) => {
  const result = canonicalPath(path);
  return result.ok ? result.path : `refused: ${result.problem}`;
};

describe("canonicalPath", () => {
  it.each([
    ["/", "/"],
    ["/zones/abc/dns_records", "/zones/abc/dns_records"],
    ["/zones/abc/", "/zones/abc/"],
    ["/zones/a b", "/zones/a%20b"],
    ["/zones/%7e%41", "/zones/~A"],
    ["/files/a:b@c;d=e,f+g$h&i", "/files/a:b@c;d=e,f+g$h&i"],
    ["/files/%3a", "/files/:"],
    ["/projects/group%2Fproject", "/projects/group%2Fproject"],
    ["/q/x%3Fy%23z", "/q/x%3Fy%23z"],
    ["/héllo", "/h%C3%A9llo"],
    ["/a/...", "/a/..."],
    ["/.well-known/x", "/.well-known/x"],
    ["/a/%25", "/a/%25"],
  ])("%s → %s", (path, expected) => {
    expect(canonical(path)).toBe(expected);
  });

  it.each([
    ["zones", /must start with "\/"/],
    ["/zones/..", /"\.\." segment/],
    ["/zones/.", /"\." segment/],
    ["/zones/%2e%2E/x", /"\.\." segment/],
    ["/zones/.%2e/x", /"\.\." segment/],
    ["/zones/..%2F..", /"\.\." segment/],
    ["/zones/a%2F..%2Fb", /"\.\." segment/],
    ["/zones/..\\..\\x", /"\\"/],
    ["/zones/a%5Cb", /"\\"/],
    ["/zones/a?b=1", /put query parameters in `query`/],
    ["/zones/a#x", /"#"/],
    ["/zones/a%00b", /control character/],
    ["/zones/a\tb", /control character/],
    ["/zones//x", /empty segment/],
    ["/zones/%zz", /malformed percent-encoding/],
    ["/zones/%E0%A4", /malformed percent-encoding/],
  ])("refuses %s", (path, reason) => {
    expect(canonical(path)).toMatch(/^refused: /);
    expect(canonical(path)).toMatch(reason);
  });

  // Tomcat, Jetty and Spring strip a `;parameters` part from each segment before resolving dot
  // segments, so `/users/..;/admin` reaches `/admin` there while it matched `/users/{id}/…` here.
  it.each([
    ["/zones/..;/dns_records", /"\.\." segment/],
    ["/zones/..;jsessionid=1/dns_records", /"\.\." segment/],
    ["/zones/.;x/dns_records", /"\." segment/],
    ["/zones/..%3B/dns_records", /"\.\." segment/],
    ["/zones/%2e%2e;/dns_records", /"\.\." segment/],
    ["/zones/a%2F..;%2Fb", /"\.\." segment/],
  ])("refuses a dot segment with path parameters: %s", (path, reason) => {
    expect(canonical(path)).toMatch(/^refused: /);
    expect(canonical(path)).toMatch(reason);
  });

  // A proxy that decodes once in front of a server that decodes again (or a server that folds
  // Unicode compatibility forms) finds a dot segment or a backslash in these.
  it.each([
    ["/zones/%252e%252e/dns_records", /"\.\." segment/],
    ["/zones/%252E%252E%252Fx", /"\.\." segment/],
    ["/zones/.%252e;/dns_records", /"\.\." segment/],
    ["/zones/a%255c..%255cb", /"\\"/],
    ["/zones/%EF%BC%8E%EF%BC%8E/dns_records", /"\.\." segment/],
    ["/zones/\u2025/dns_records", /"\.\." segment/],
    ["/zones/a%EF%BC%BCb", /"\\"/],
  ])("refuses %s (a dot segment or backslash after one more decoding)", (path, reason) => {
    expect(canonical(path)).toMatch(/^refused: /);
    expect(canonical(path)).toMatch(reason);
  });

  it.each([
    ["/a/%2525", "/a/%2525"],
    ["/a/100%25%20done", "/a/100%25%20done"],
    ["/a/%252Fx", "/a/%252Fx"],
    ["/a/\uFF41", "/a/%EF%BD%81"],
  ])("keeps %s (data that is not a dot segment either way)", (path, expected) => {
    expect(canonical(path)).toBe(expected);
  });
});

// A request path is bounded before it is matched: the path matcher's regular expressions for
// segments mixing parameters and text (`{a}.{b}.json`) backtrack quadratically, and a program
// chose the path. Before: a 200,000-character segment held the host's thread for 14 s.
const spec = loadSpec({
  openapi: "3.0.3",
  info: { title: "files", version: "1" },
  paths: {
    "/files/{name}.{ext}.json": {
      get: {
        parameters: [
          { name: "name", in: "path", required: true, schema: { type: "string" } },
          { name: "ext", in: "path", required: true, schema: { type: "string" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
});

describe("request paths are bounded", () => {
  it("a path longer than MAX_PATH_LENGTH is refused with the limit named", () => {
    const result = canonicalPath(`/files/${"x".repeat(MAX_PATH_LENGTH)}`);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toMatch(/longer than 16,384 characters/);
    expect(canonicalPath(`/files/${"x".repeat(MAX_PATH_LENGTH - 8)}`).ok).toBe(true);
    // Counted as sent: "é" is sent as "%C3%A9".
    expect(canonicalPath(`/files/${"é".repeat(MAX_PATH_LENGTH / 4)}`).ok).toBe(false);
  });

  it("a hostile path against a mixed segment template is refused at once", () => {
    const request = apiRequester({
      spec,
      handler: () => ({ status: 200 }),
      validate: true,
      secrets: [],
      mcp: {} as never,
    });
    // Counted, not timed: every expression run on the path must be one pattern-safety's cost
    // model lets run on a subject that long (the segment checks are linear; the matcher's
    // expressions are not, and a run of theirs on the path is refused before it starts).
    const { runs } = countRegexRuns(() => {
      expect(() =>
        request(
          { method: "GET", path: `/files/${"é.".repeat(8_000)}` },
          new AbortController().signal,
        ),
      ).toThrow(/longer than 16,384 characters/);
      expect(() =>
        request(
          { method: "GET", path: `/files/${"x.".repeat(100_000)}` },
          new AbortController().signal,
        ),
      ).toThrow(/longer than 16,384 characters/);
    }, beyondStepBudget);
    expect(runs.filter(beyondStepBudget)).toEqual([]);
  });
});
