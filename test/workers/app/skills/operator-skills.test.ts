// Skills the operator ships (SKILLS_DIR at start, bundled by deploy) in the product: callable by
// every principal, read-only; and the status page's skills, measured as no principal and drawn
// as text.
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { BUNDLED_SKILLS_KEY } from "../../../../src/app/config/setting-names";
import { configured } from "../helpers";
import { api, call, saving, unique } from "./skill-calls";

describe("operator skills (SKILLS_DIR, handed over as LAUNCH_SKILLS)", () => {
  const shipped = {
    name: "double",
    description: "Doubles n (shipped by the operator).",
    input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    code: "async ({ n }) => n * 2",
  };
  const launch = { LAUNCH_SKILLS: JSON.stringify([shipped]) } as AppSettings;

  it("are callable by every principal, listed read-only, and cannot be overwritten", async () => {
    const keyA = `key-a-${unique()}-0123456789`;
    const keyB = `key-b-${unique()}-0123456789`;
    for (const key of [keyA, keyB]) {
      const app = configured({ MCP_API_KEY: key, ...launch });
      const auth = { authorization: `Bearer ${key}` };
      const called = await call(app, "async () => skills.double({ n: 21 })", "/mcp", auth);
      expect(called.content[0]!.text).toBe("42");
      const listed = (await api(app, "", {}, auth)).body.skills;
      expect(listed).toEqual([expect.objectContaining({ name: "double", readOnly: true })]);
    }
    const app = configured({ MCP_API_KEY: keyA, ...launch });
    const auth = { authorization: `Bearer ${keyA}` };
    const overwrite = await call(
      app,
      `async () => skills.save({ name: "double", description: "mine", input: { type: "object" }, run: async () => 0 })`,
      "/mcp",
      auth,
    );
    expect(overwrite.isError).toBe(true);
    expect(overwrite.content[0]!.text).toMatch(
      /Skill "double" is a read-only skill the operator ships with this server: it cannot be overwritten/,
    );
    const deleted = await api(app, "/double", { method: "DELETE" }, auth);
    expect(deleted.status).toBe(400);
    expect(deleted.body.error.message).toMatch(/cannot be deleted/);
    // Not exported as the principal's own.
    expect((await api(app, "/export", {}, auth)).body.folders).toEqual([]);
  });

  it("a principal's own skill hidden by an operator's of the same name can be deleted", async () => {
    const key = `key-h-${unique()}-0123456789`;
    const auth = { authorization: `Bearer ${key}` };
    // Saved before the operator shipped a skill named "double".
    const before = configured({ MCP_API_KEY: key });
    const saved = await call(
      before,
      `async () => { await skills.save({ name: "double", description: "Mine: adds one.", input: { type: "object" }, run: async ({ n }) => n + 1 }); return 0; }`,
      "/mcp",
      auth,
    );
    expect(saved.content.at(-1)!.text).toMatch(/Saved skill "double" as version 1/);
    const app = configured({ MCP_API_KEY: key, ...launch });
    expect(
      (await call(app, "async () => skills.double({ n: 21 })", "/mcp", auth)).content[0]!.text,
    ).toBe("42");
    const deleted = await api(app, "/double", { method: "DELETE" }, auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      deleted: true,
      name: "double",
      note: `Your own skill "double" is deleted. skills.double() still calls the operator's read-only skill of that name, which this server ships for every caller.`,
    });
    // Gone from the principal's store (the server without the operator's skill no longer has it) …
    expect((await api(before, "", {}, auth)).body.skills).toEqual([]);
    // … and the operator's stays callable and cannot be deleted.
    expect(
      (await call(app, "async () => skills.double({ n: 21 })", "/mcp", auth)).content[0]!.text,
    ).toBe("42");
    const again = await api(app, "/double", { method: "DELETE" }, auth);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/read-only skill .* cannot be deleted/);
  });

  it("bundled by deploy (the global its module sets), they serve the same way, read-only", async () => {
    const at = Symbol.for(BUNDLED_SKILLS_KEY);
    const global = globalThis as Record<symbol, unknown>;
    // What cli/deploy-skills.mjs's operator-skills.js sets before the Worker's module runs.
    global[at] = JSON.stringify([{ ...shipped, name: "triple", code: "async ({ n }) => n * 3" }]);
    try {
      const key = `key-d-${unique()}-0123456789`;
      const auth = { authorization: `Bearer ${key}` };
      const app = configured({ MCP_API_KEY: key });
      const called = await call(app, "async () => skills.triple({ n: 14 })", "/mcp/code", auth);
      expect(called.content[0]!.text).toBe("42");
      const listed = (await api(app, "", {}, auth)).body.skills;
      expect(listed).toEqual([expect.objectContaining({ name: "triple", readOnly: true })]);
      const rolled = await api(
        app,
        "/triple/rollback",
        { method: "POST", body: JSON.stringify({ version: 1 }) },
        auth,
      );
      expect(rolled.status).toBe(400);
      expect(rolled.body.error.message).toMatch(/read-only skill .* cannot be rolled back/);
    } finally {
      delete global[at];
    }
  });

  it("a shipped skill that fails the checks is left out and named on the status page", async () => {
    const bad = { ...shipped, name: "constructor" };
    const app = configured({ LAUNCH_SKILLS: JSON.stringify([bad]) } as AppSettings);
    const status = (await (await app("http://localhost/api/status")).json()) as {
      warnings: string[];
    };
    expect(status.warnings.join("\n")).toMatch(/operator skill left out: .*"constructor"/);
  });
});

describe("the public status page", () => {
  it("measures the tools as no principal: a principal's skills change nothing it shows", async () => {
    const key = `key-${unique()}-0123456789`;
    const auth = { authorization: `Bearer ${key}` };
    const app = configured({ MCP_API_KEY: key });
    const status = async () => (await app("http://localhost/api/status")).text();
    const before = await status();
    const name = unique();
    await call(app, saving(name), "/mcp/code", auth);
    expect((await api(app, "", {}, auth)).body.skills).toHaveLength(1);
    // Neither the key holder's skill names nor their descriptions' lengths reach the page.
    const after = await status();
    expect(after).not.toContain(name);
    expect(after).toBe(before);
    expect(await (await app("http://localhost/")).text()).not.toContain(name);
  });
});

describe("the status page's skills section", () => {
  it("loads skills with the page's key and writes descriptions as text, never markup", async () => {
    const page = await (await configured({})("http://localhost/")).text();
    expect(page).toContain('<table id="skills-table"');
    // The page holds no one's skills: they are read by its script from /api/skills.
    expect(page).toMatch(/fetch\("\/api\/skills", \{ headers \}\)/);
    expect(page).toMatch(/td\.textContent = String\(text\)/);
    expect(page).not.toMatch(/innerHTML/);
    const off = await (await configured({ SKILLS: "off" })("http://localhost/")).text();
    expect(off).toContain('id="skills-off"');
    expect(off).not.toContain("skills-table");
  });
});
