/**
 * `SKILLS_DIR=… code-mode-mcp deploy` bundles the operator's read-only skills with the prebuilt
 * Worker (cli/deploy-skills.mjs): checked first (a bad folder stops the deploy, naming it), then
 * staged as a module that sets the global the Worker reads, imported before the Worker. The real
 * deploy runs with a stand-in wrangler (test/helpers/cli/fake-wrangler.mjs) that reports the staged
 * folder; the checks are the product's own (src/app/skills/operator-skills.ts). That the Worker
 * serves such skills read-only: test/workers/app/skills/operator-skills.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deploy } from "../../../../cli/deploy.mjs";
import { skillFolder } from "../../../../src/codemode/skills/agent-skill-format";
import { BUNDLED_SKILLS_KEY } from "../../../../src/app/config/setting-names";
import { readSkillsDir } from "../../../../src/app/skills/operator-skills";

const FAKE = join(import.meta.dirname, "../../../helpers/cli/fake-wrangler.mjs");
const product = { readSkillsDir, BUNDLED_SKILLS_KEY };
const skill = {
  name: "double",
  description: 'Twice n. </script><b>"quoted"</b>\nSecond line.',
  input: { type: "number" },
  code: "async (n) => n * 2 // `${x}` \\u2028 */",
};

let work: string;
let skills: string;
let config: string;
let report: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "deploy-skills-test-"));
  skills = join(work, "skills");
  report = join(work, "report.json");
  for (const { folder, files } of [skillFolder(skill)])
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(skills, folder, path, ".."), { recursive: true });
      writeFileSync(join(skills, folder, path), text);
    }
  mkdirSync(join(work, "worker"));
  config = join(work, "worker/wrangler.json");
  writeFileSync(config, JSON.stringify({ name: "t", main: "worker.js", no_bundle: true }));
  writeFileSync(join(work, "worker/worker.js"), "export default { fetch() {} };\n");
  mkdirSync(join(work, "tmp"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

async function run(env: Record<string, string>) {
  process.env.FAKE_WRANGLER_REPORT = report;
  const lines: string[] = [];
  const errors: string[] = [];
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const code = await deploy({
      dryRun: true,
      passThrough: [],
      progress: (line: string) => lines.push(line),
      env,
      wrangler: FAKE,
      config,
      build: false,
      tmp: join(work, "tmp"),
      product,
    });
    return { code, lines, errors };
  } finally {
    console.error = original;
  }
}

describe("deploy with SKILLS_DIR", () => {
  it("stages the Worker with the checked skills set before it runs; the prebuilt files unchanged", async () => {
    const { code, lines } = await run({ SKILLS_DIR: skills });
    expect(code).toBe(0);
    expect(lines.join("\n")).toContain("bundling 1 operator skill(s) from");
    const seen = JSON.parse(readFileSync(report, "utf8"));
    const files = seen.configFiles as Record<string, string>;
    expect(Object.keys(files).toSorted()).toEqual([
      "entry.js",
      "operator-skills.js",
      "worker.js",
      "wrangler.json",
    ]);
    expect(files["entry.js"]!.split("\n")[0]).toBe('import "./operator-skills.js";');
    expect(JSON.parse(files["wrangler.json"]!)).toMatchObject({
      main: "entry.js",
      no_bundle: true,
      find_additional_modules: true,
    });
    // Evaluated as the Worker would: the global holds the checked skills, text intact.
    const global = globalThis as Record<symbol, unknown>;
    const at = Symbol.for(BUNDLED_SKILLS_KEY);
    try {
      new Function(files["operator-skills.js"]!)();
      expect(JSON.parse(global[at] as string)).toEqual([skill]);
    } finally {
      delete global[at];
    }
    // The staging folder is gone, and the prebuilt config still points at worker.js.
    expect(readdirSync(join(work, "tmp"))).toEqual([]);
    expect(JSON.parse(readFileSync(config, "utf8")).main).toBe("worker.js");
  });

  it("refuses a bad skill folder by name before wrangler runs", async () => {
    writeFileSync(join(skills, "double/SKILL.md"), "no front matter");
    const { code, errors } = await run({ SKILLS_DIR: skills });
    expect(code).toBe(1);
    expect(errors.join("\n")).toMatch(
      /^code-mode-mcp deploy: SKILLS_DIR: Skill folder "double": SKILL.md does not start with YAML front matter/,
    );
    expect(errors.join("\n")).toContain("Nothing was deployed.");
    expect(() => readFileSync(report)).toThrow();
  });

  it("without SKILLS_DIR hands wrangler the prebuilt config itself", async () => {
    expect((await run({})).code).toBe(0);
    const seen = JSON.parse(readFileSync(report, "utf8"));
    expect(seen.args[seen.args.indexOf("--config") + 1]).toBe(config);
  });
});
