/**
 * The env file the launchers hand to wrangler (cli/env-file.mjs): values arrive literally, the
 * file is private to its owner, and a value dotenv cannot carry is named instead of mangled.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envLine, writeEnvFile } from "../../../cli/env-file.mjs";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("launcher env file", () => {
  it("keeps JSON and quotes literal", () => {
    expect(envLine("UPSTREAM_MCP_AUTH", '{"github":"Bearer x"}')).toBe(
      `UPSTREAM_MCP_AUTH='{"github":"Bearer x"}'`,
    );
    expect(envLine("A", "it's")).toBe("A=`it's`");
    expect(envLine("A", "it's `x`\nnext")).toBe('A="it\'s `x`\\nnext"');
    expect(envLine("A", `'\`"`)).toBeUndefined();
  });

  it("writes mode 0600 and names a value it cannot carry", () => {
    dir = mkdtempSync(join(tmpdir(), "env-file-test-"));
    const file = join(dir, "settings.env");
    expect(writeEnvFile(file, { SPEC: "demo-api", API_TOKEN: "tok'en" })).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe("SPEC='demo-api'\nAPI_TOKEN=`tok'en`\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(writeEnvFile(join(dir, "b.env"), { OK: "x", BAD: `'\`"` })).toBe("BAD");
  });
});
