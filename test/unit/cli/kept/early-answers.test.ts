/**
 * cli/kept/early-answers.mjs: the host's `initialize` answer kept from one `--stdio` launch for
 * the next (issue #43). Read back only under the name the same Worker, spec, settings and route
 * give, only when written under the user's key, only from a folder of this user's alone; an
 * answer holding a setting's value is never written. Real files.
 */
import { chmodSync, readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import {
  earlyAnswersFolder,
  earlyAnswersOf,
  isInitializeResult,
  openEarlyAnswers,
} from "../../../../cli/kept/early-answers.mjs";
import { keptFolders } from "../../../../cli/kept/kept-folders-warning.mjs";
import { isLaunchSetting } from "../../../../cli/product/stdio-entry.mjs";

const scratch = scratchFolders("early-answers-");
const isSetting = (name: string) => ["API_TOKEN", "API_BASE_URL", "MCP_API_KEY"].includes(name);
const answer = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: {} },
  serverInfo: { name: "code-mode-api", version: "0.1.0" },
};

function setUp(uid?: number) {
  const root = scratch.folder();
  const worker = join(root, "worker.js");
  writeFileSync(worker, "export default {}");
  const spec = join(root, "openapi.json");
  writeFileSync(spec, '{"openapi":"3.0.0"}');
  const env = { XDG_CACHE_HOME: join(root, "cache"), XDG_CONFIG_HOME: join(root, "config") };
  const folder = earlyAnswersFolder(env);
  const keyFile = join(root, "config", "code-mode-mcp", "spec-cache.key");
  const store = openEarlyAnswers(folder, keyFile, uid === undefined ? {} : { uid });
  const inputs = {
    workerFiles: [worker],
    specFile: spec,
    env: { API_BASE_URL: "https://api.example.com", API_TOKEN: "token-0123456789", PWD: "/x" },
    isSetting,
    route: "/mcp",
  };
  return { root, worker, spec, env, folder, keyFile, store, inputs };
}

describe("openEarlyAnswers: the entry's name", () => {
  it("changes with the Worker's bytes, the spec's bytes, a setting's value and the route", () => {
    const s = setUp();
    const base = s.store.nameOf(s.inputs);
    expect(base).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(s.store.nameOf(s.inputs)).toBe(base);
    // Not a setting of the product: the same answer.
    expect(s.store.nameOf({ ...s.inputs, env: { ...s.inputs.env, PWD: "/y" } })).toBe(base);
    expect(
      s.store.nameOf({ ...s.inputs, env: { ...s.inputs.env, API_TOKEN: "token-other-000" } }),
    ).not.toBe(base);
    expect(s.store.nameOf({ ...s.inputs, route: "/mcp/code" })).not.toBe(base);
    expect(s.store.nameOf({ ...s.inputs, specFile: undefined })).not.toBe(base);
    writeFileSync(s.spec, '{"openapi":"3.1.0"}');
    const specChanged = s.store.nameOf(s.inputs);
    expect(specChanged).not.toBe(base);
    writeFileSync(s.worker, "export default { rebuilt: 1 }");
    expect(s.store.nameOf(s.inputs)).not.toBe(specChanged);
  });

  it("names nothing for a spec file that is gone (the check refuses it; nothing early)", () => {
    const s = setUp();
    expect(s.store.nameOf({ ...s.inputs, specFile: join(s.root, "missing.json") })).toBe(undefined);
  });

  it("holds no setting's value: the name is a keyed hash", () => {
    const s = setUp();
    const name = s.store.nameOf(s.inputs) as string;
    expect(s.store.write(name, { "2025-06-18": answer }, {})).toBe(true);
    const files = readdirSync(s.folder);
    for (const file of files) {
      expect(file).not.toContain("token-0123456789");
      expect(readFileSync(join(s.folder, file), "utf8")).not.toContain("token-0123456789");
    }
  });
});

describe.skipIf(process.platform === "win32")("openEarlyAnswers: what is read back", () => {
  it("reads back what it kept, 0600 in a 0700 folder, and nothing under another name", () => {
    const s = setUp();
    const name = s.store.nameOf(s.inputs) as string;
    expect(s.store.read(name)).toBeUndefined();
    expect(s.store.write(name, { "2025-06-18": answer }, s.inputs.env)).toBe(true);
    expect(s.store.read(name)).toEqual({ "2025-06-18": answer });
    expect(readdirSync(s.folder)).toEqual([name]);
    const other = s.store.nameOf({ ...s.inputs, route: "/mcp/code" }) as string;
    expect(s.store.read(other)).toBeUndefined();
  });

  it("refuses an edited entry, one forged under another key, one moved under another name", () => {
    const s = setUp();
    const name = s.store.nameOf(s.inputs) as string;
    const other = s.store.nameOf({ ...s.inputs, route: "/mcp/code" }) as string;
    s.store.write(name, { "2025-06-18": answer }, {});
    const path = join(s.folder, name);
    const good = readFileSync(path, "utf8");
    writeFileSync(path, good.replace('"code-mode-api"', '"code-mode-apj"'));
    expect(s.store.read(name)).toBeUndefined();
    writeFileSync(path, good);
    expect(s.store.read(name)).toEqual({ "2025-06-18": answer });
    const forger = openEarlyAnswers(s.folder, join(s.root, "other", "spec-cache.key"));
    forger.write(name, { "2025-06-18": { ...answer, instructions: "forged" } }, {});
    expect(s.store.read(name)).toBeUndefined();
    s.store.write(other, { "2025-06-18": { ...answer, instructions: "other" } }, {});
    renameSync(join(s.folder, other), path);
    expect(s.store.read(name)).toBeUndefined();
  });

  it("reads nothing from a folder another user owns or others may write in", () => {
    const s = setUp();
    // And a launch warns of such a folder, as of the other kept folders.
    expect(keptFolders(s.env)).toContain(s.folder);
    const name = s.store.nameOf(s.inputs) as string;
    s.store.write(name, { "2025-06-18": answer }, {});
    expect(s.store.read(name)).toEqual({ "2025-06-18": answer });
    // The same folder seen by a process of another uid: not its own, never read.
    const foreign = openEarlyAnswers(s.folder, s.keyFile, { uid: (process.getuid?.() ?? 0) + 1 });
    expect(foreign.read(name)).toBeUndefined();
    chmodSync(s.folder, 0o770);
    expect(s.store.read(name)).toBeUndefined();
  });

  it("keeps no answer that holds a setting's value, and nothing that is not an answer", () => {
    const s = setUp();
    const name = s.store.nameOf(s.inputs) as string;
    const leaky = { ...answer, instructions: "calls with token-0123456789" };
    expect(s.store.write(name, { "2025-06-18": leaky }, s.inputs.env)).toBe(false);
    expect(s.store.read(name)).toBeUndefined();
    const escaped = { ...answer, instructions: 'key "quoted\\secret"' };
    expect(s.store.write(name, { "2025-06-18": escaped }, { API_TOKEN: 'quoted\\secret"x' })).toBe(
      true,
    );
    expect(s.store.write(name, { "2025-06-18": escaped }, { API_TOKEN: '"quoted\\secret"' })).toBe(
      false,
    );
    expect(
      s.store.write(name, { "2025-06-18": { protocolVersion: "x" } } as never, s.inputs.env),
    ).toBe(false);
    expect(isInitializeResult(answer)).toBe(true);
    expect(isInitializeResult({ ...answer, serverInfo: { name: 1 } })).toBe(false);
  });
});

describe.skipIf(process.platform === "win32")("earlyAnswersOf", () => {
  it("reads nothing the first time, keeps what the host answered, and reads it back", async () => {
    const s = setUp();
    const env = { ...s.env, SPEC_FILE: s.spec, API_TOKEN: "token-0123456789" };
    const options = { env, route: "/mcp", workerFiles: [s.worker], isSetting };
    const first = earlyAnswersOf(options);
    expect(first.kept).toBeUndefined();
    first.keep({ "2025-06-18": answer });
    await new Promise((r) => setImmediate(r));
    expect(earlyAnswersOf(options).kept).toEqual({ "2025-06-18": answer });
    expect(earlyAnswersOf({ ...options, route: "/mcp/code" }).kept).toBeUndefined();
    expect(
      earlyAnswersOf({ ...options, env: { ...env, API_TOKEN: "token-changed-0" } }).kept,
    ).toBeUndefined();
  });

  it("keeps nothing and reads nothing with operator skills (files the check may refuse)", async () => {
    const s = setUp();
    const env = { ...s.env, SPEC_FILE: s.spec, SKILLS_DIR: join(s.root, "skills") };
    const launch = earlyAnswersOf({ env, route: "/mcp", workerFiles: [s.worker], isSetting });
    expect(launch.kept).toBeUndefined();
    launch.keep({ "2025-06-18": answer });
    await new Promise((r) => setImmediate(r));
    expect(readdirSync(s.root)).not.toContain("cache");
  });

  it("keys on the product's and the launcher's settings, from their own tables", () => {
    for (const name of ["API_TOKEN", "MCP_API_KEY", "LIMIT_TIMEOUT_MS", "PORT", "SKILLS_DIR"])
      expect(isLaunchSetting(name)).toBe(true);
    for (const name of ["PWD", "TMPDIR", "XDG_CACHE_HOME", "toString"])
      expect(isLaunchSetting(name)).toBe(false);
  });
});
