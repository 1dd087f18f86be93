// canonicalPath: request paths normalised before matching and validation.
import { describe, expect, it } from "vitest";
import { canonicalPath } from "../../../src/openapi/canonical-path";

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
});
