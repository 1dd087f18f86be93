/**
 * cli/kept/launch-memo.mjs (issue #43): what the last launch gave its host, kept so the next
 * launch can start that host beside its check. A memo never holds a setting's value (secrets
 * among them), only where it came from; it is read back only under the user's key, and a memo
 * edited, forged or of another spec file is not read. Real files.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import { MAX_TEXT_CHARS, memoOfPlan, openLaunchMemos } from "../../../../cli/kept/launch-memo.mjs";

const scratch = scratchFolders("launch-memo-");
const SECRET = "tok_5f2c9a-secret-value";
const plan = {
  runners: 2,
  launchSpec: { binding: "LAUNCH_SPECS", name: "api" },
  bindings: {
    API_TOKEN: SECRET,
    API_BASE_URL: "https://api.example.com",
    SPEC: "api",
    LAUNCH_SPECS: '{"api":{"operations":[]}}',
    LAUNCH_TOOLS_LIST_TOKENS: '{"d":{"tokens":6}}',
  },
};
const env = { API_TOKEN: SECRET, API_BASE_URL: "https://api.example.com" };

function setUp() {
  const root = scratch.folder();
  return { folder: join(root, "cache", "launch"), key: join(root, "config", "spec-cache.key") };
}

describe("memoOfPlan", () => {
  it("keeps where each setting came from, never its value", () => {
    const memo = memoOfPlan(plan, env);
    expect(memo).toEqual({
      runners: 2,
      bindings: [
        ["API_TOKEN", ["env"]],
        ["API_BASE_URL", ["env"]],
        ["SPEC", ["text", "api"]],
        ["LAUNCH_SPECS", ["spec", "api"]],
        ["LAUNCH_TOOLS_LIST_TOKENS", ["text", '{"d":{"tokens":6}}']],
      ],
    });
    expect(JSON.stringify(memo)).not.toContain(SECRET);
  });

  it("keeps no memo when the literal values are too large to keep", () => {
    const skills = { ...plan, bindings: { ...plan.bindings, SKILLS: "x".repeat(MAX_TEXT_CHARS) } };
    expect(memoOfPlan(skills, env)).toBeUndefined();
  });
});

describe("openLaunchMemos", () => {
  it("reads back what it wrote, private to the user, and nothing for another spec file", () => {
    const { folder, key } = setUp();
    const memos = openLaunchMemos(folder, key);
    const memo = memoOfPlan(plan, env)!;
    expect(memos.read("/specs/api.json")).toBeUndefined();
    expect(memos.write("/specs/api.json", memo)).toBe(true);
    expect(openLaunchMemos(folder, key).read("/specs/api.json")).toEqual(memo);
    expect(memos.read("/specs/other.json")).toBeUndefined();
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(folder);
    const path = join(folder, String(file));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).not.toContain(SECRET);
  });

  it("keeps a memo per set of settings for one spec file, each read by its own launch", () => {
    // Two desktop clients with one spec, one with API_TOKEN and one without: each launch wrote
    // over the other's memo, so every launch of either found a memo it could not use.
    const { folder, key } = setUp();
    const memos = openLaunchMemos(folder, key);
    const bare = { API_BASE_URL: "https://api.example.com" };
    const { API_TOKEN: _token, ...bindings } = plan.bindings;
    const withToken = memoOfPlan(plan, env)!;
    const without = memoOfPlan({ ...plan, runners: 1, bindings }, bare)!;
    expect(memos.write("/specs/api.json", without)).toBe(true);
    expect(memos.write("/specs/api.json", withToken)).toBe(true);
    expect(memos.read("/specs/api.json", bare)).toEqual(without);
    expect(memos.read("/specs/api.json", env)).toEqual(withToken);
    expect(memos.read("/specs/api.json", {})).toBeUndefined();
    expect(readdirSync(folder)).toHaveLength(2);
  });

  it("keeps no memo larger than one read back, and drops the older one", () => {
    // 800,000 control characters are under MAX_TEXT_CHARS but six bytes each in JSON: such a
    // memo was written, never read back, and so written again at every launch.
    const { folder, key } = setUp();
    const memos = openLaunchMemos(folder, key);
    expect(memos.write("/specs/api.json", memoOfPlan(plan, env)!)).toBe(true);
    const large = { ...plan, bindings: { ...plan.bindings, SKILLS: "\u0001".repeat(800_000) } };
    const memo = memoOfPlan(large, env)!;
    expect(memo).toBeDefined();
    expect(memos.write("/specs/api.json", memo)).toBe(false);
    expect(readdirSync(folder)).toEqual([]);
    expect(memos.read("/specs/api.json")).toBeUndefined();
  });

  it("does not read a memo edited after it was written", () => {
    const { folder, key } = setUp();
    const memos = openLaunchMemos(folder, key);
    memos.write(undefined, memoOfPlan(plan, env)!);
    const [file] = readdirSync(folder);
    const path = join(folder, String(file));
    // A binding's value swapped in, the MAC left as it was.
    writeFileSync(path, readFileSync(path, "utf8").replace('["text","api"]', '["text","evil"]'), {
      mode: 0o600,
    });
    expect(memos.read(undefined)).toBeUndefined();
  });

  it.skipIf(process.platform === "win32")(
    "does not read a memo from a folder others may write, as the caches do not",
    () => {
      // Others could rename, link or keep old memos there (ownFolder, cli/private-files.mjs); the
      // spec cache and the tools/list counts refuse such a folder before reading, the memo too.
      const { folder, key } = setUp();
      const memos = openLaunchMemos(folder, key);
      expect(memos.write("/specs/api.json", memoOfPlan(plan, env)!)).toBe(true);
      chmodSync(folder, 0o777);
      expect(memos.read("/specs/api.json")).toBeUndefined();
      expect(statSync(folder).mode & 0o777).toBe(0o777);
    },
  );

  it("does not read a memo written under another user's key", () => {
    const { folder, key } = setUp();
    const other = setUp();
    openLaunchMemos(folder, other.key).write(undefined, memoOfPlan(plan, env)!);
    expect(openLaunchMemos(folder, key).read(undefined)).toBeUndefined();
  });
});
