// The local cluster's secret (src/executor/runners/cluster-secret.ts and its Node twin
// cli/local-server/cluster-secret.mjs): how a runtime tells the server's own processes from any
// other process on the machine, and how the launcher hands the secret to the runtimes (as a
// binding in their IPC message: never a file, an argument or an environment variable).
import { describe, expect, it } from "vitest";
import * as node from "../../../cli/local-server/cluster-secret.mjs";
import { hostMessage, runnerMessage } from "../../../cli/local-server/worker-options.mjs";
import {
  CLUSTER_SECRET_BINDING,
  CLUSTER_SECRET_HEADER,
  LOCAL_CALLER_HEADER,
  clusterSecretOf,
  isClusterSecret,
} from "../../../src/executor/runners/cluster-secret";

describe("isClusterSecret", () => {
  const secret = "k3y-Of-this-launch_0123456789abcdefghijklmnopq";

  it("accepts the secret, and nothing else", () => {
    expect(isClusterSecret(secret, secret)).toBe(true);
    for (const given of [
      "",
      secret.slice(0, -1),
      `${secret}x`,
      secret.toUpperCase(),
      `${secret.slice(0, -1)}Q`,
      // Same length, same bytes up to the last: the loop must look at every byte.
      secret.replace(/.$/, "r"),
    ])
      expect(isClusterSecret(given, secret)).toBe(false);
  });

  it("treats anything that is not a string as no secret", () => {
    for (const given of [null, undefined, 0, {}, [secret], { toString: () => secret }])
      expect(isClusterSecret(given, secret)).toBe(false);
  });

  it("never matches an empty secret (a runtime without one serves no one)", () => {
    expect(isClusterSecret("", "")).toBe(false);
  });

  it("compares the text itself, so a longer guess sharing the start is refused", () => {
    expect(isClusterSecret("é", "e")).toBe(false);
    expect(isClusterSecret("é", "é")).toBe(true);
    expect(isClusterSecret("e\u0301", "é")).toBe(false);
  });

  it("refuses a different text that UTF-8 encodes to the same bytes (a lone surrogate)", () => {
    // An RPC argument may be any string: a lone surrogate encodes as U+FFFD's bytes, so a
    // comparison of UTF-8 encodings took it for a secret holding U+FFFD.
    expect(isClusterSecret("a\uD800b", "a\uFFFDb")).toBe(false);
    expect(isClusterSecret("\uDC00", "\uFFFD")).toBe(false);
    expect(isClusterSecret("a\uFFFDb", "a\uFFFDb")).toBe(true);
  });

  it("looks at every character of a guess longer or shorter than the secret", () => {
    // Past the end of the guess its characters read as 0: a guess that is the secret cut
    // before a NUL must still differ by its length.
    expect(isClusterSecret("ab", "ab\u0000")).toBe(false);
    expect(isClusterSecret("ab\u0000", "ab")).toBe(false);
  });
});

describe("clusterSecretOf", () => {
  it("reads the binding when it is a non-empty string of the bindings object itself", () => {
    expect(clusterSecretOf({ [CLUSTER_SECRET_BINDING]: "s" })).toBe("s");
    expect(clusterSecretOf({ [CLUSTER_SECRET_BINDING]: "" })).toBeUndefined();
    expect(clusterSecretOf({})).toBeUndefined();
    expect(clusterSecretOf(null)).toBeUndefined();
    // Inherited does not count: nothing on a prototype can become the secret.
    expect(clusterSecretOf(Object.create({ [CLUSTER_SECRET_BINDING]: "s" }))).toBeUndefined();
  });
});

describe("the launcher's side (cli/local-server/cluster-secret.mjs)", () => {
  it("names the same header and binding as the Workers", () => {
    expect(node.CLUSTER_SECRET_HEADER).toBe(CLUSTER_SECRET_HEADER);
    expect(node.LOCAL_CALLER_HEADER).toBe(LOCAL_CALLER_HEADER);
    expect(node.CLUSTER_SECRET_BINDING).toBe(CLUSTER_SECRET_BINDING);
  });

  it("makes 256 random bits per launch, URL-safe (fits a header as it is)", () => {
    expect(node.clusterSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("gives it to the host and the runners as a binding in their message, nowhere else", () => {
    const secret = "launch-secret";
    const host = hostMessage({
      configFile: "/x/dist/worker/wrangler.json",
      config: { name: "w", main: "index.js", compatibility_date: "2026-01-01", vars: {} },
      // A setting of the same name cannot replace it.
      bindings: { [CLUSTER_SECRET_BINDING]: "chosen-by-a-setting" },
      persist: "/x/state",
      runners: ["127.0.0.1:1"],
      secret,
    });
    const runner = runnerMessage({
      scriptPath: "/x/runner.js",
      compatibilityDate: "2026-01-01",
      rpcHost: "unix:/private/runner-1.sock",
      secret,
    });
    for (const message of [host, runner]) {
      const worker = (message.options as { workers: { bindings: Record<string, string> }[] })
        .workers[0]!;
      expect(worker.bindings[CLUSTER_SECRET_BINDING]).toBe(secret);
      // Exactly once in the whole message: no argument, flag or other option carries it.
      expect(JSON.stringify(message).split(secret)).toHaveLength(2);
    }
  });
});
