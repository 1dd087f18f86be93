// Skills in the product (#44): the Worker's /mcp/code and /mcp save and call skills in the
// SKILLS Durable Object, per principal (open server: one set; API key: per key; OAuth: per
// user), and /api/skills lists, shows, deletes, rolls back, exports and imports them.
import type { AuthInfo } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../../src/app/app";
import type { AppSettings } from "../../../../src/app/config/config";
import { COMPACT_SPECS, TOOLS_LIST_TOKENS } from "../../../../src/app/generated/specs";
import { connect } from "../../../helpers/clients/mcp-client";
import { accessToken, registerClient } from "../../../helpers/clients/oauth-client";
import { configured, type WorkerFetch } from "../helpers";
import { api, call, saving, text0, unique, type Result } from "./skill-calls";

describe("skills in the product", () => {
  it("save from /mcp/code, refused by /mcp's execute (other codemode), manage over /api/skills", async () => {
    const app = configured({});
    const name = unique();
    const saved = await call(app, saving(name));
    expect(saved.isError, saved.content[0]?.text).toBeFalsy();
    expect(saved.content.at(-1)!.text).toBe(
      `Saved skill "${name}" as version 1: later programs call it as skills.${name}(input).`,
    );
    // It calls upstream tools (codemode.list_projects): `code` lists it; `execute`, whose
    // codemode has request() instead, neither lists nor runs it, and says where it runs.
    for (const path of ["/mcp/code", "/mcp"]) {
      const client = await connect(app, path);
      const tools = (await client.listTools()).tools;
      await client.close();
      const tool = tools.find((t) => t.name === (path === "/mcp" ? "execute" : "code"))!;
      if (path === "/mcp") expect(tool.description).not.toContain(name);
      else expect(tool.description).toContain(name);
      expect(tool.description!.length).toBeLessThanOrEqual(2_048);
    }
    const called = await call(app, `async () => skills.${name}({ a: 40, b: 2 })`);
    expect(called.content[0]!.text).toBe(JSON.stringify({ sum: 42, projects: true }));
    const viaExecute = await call(app, `async () => skills.${name}({ a: 40, b: 2 })`, "/mcp");
    expect(viaExecute.isError).toBe(true);
    expect(viaExecute.content[0]!.text).toContain(
      `skills.${name}() was saved from the \`code\` tool and calls its codemode functions, which this tool (\`execute\`) does not have: call it from \`code\`.`,
    );
    const refused = await call(app, `async () => skills.${name}({ a: "x", b: 2 })`);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/invalid input: input\/a: .*The skill did not run/);

    // Version 2, then roll back to 1: runs use 1.
    await call(app, saving(name, 2));
    expect((await call(app, `async () => skills.${name}({ a: 1, b: 1 })`)).content[0]!.text).toBe(
      JSON.stringify({ sum: 3, projects: true }),
    );
    const shown = await api(app, `/${name}`);
    expect(shown.body.skill.version).toBe(2);
    expect(shown.body.skill.code).toMatch(/^async \(\{ a, b \}\) =>/);
    expect(shown.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const rolled = await api(app, `/${name}/rollback`, {
      method: "POST",
      body: JSON.stringify({ version: 1 }),
    });
    expect(rolled.status).toBe(200);
    expect((await call(app, `async () => skills.${name}({ a: 1, b: 1 })`)).content[0]!.text).toBe(
      JSON.stringify({ sum: 2, projects: true }),
    );
    const after = await call(
      app,
      `async () => { await skills.${name}({ a: 1, b: 1 }); throw new Error("after the skill"); }`,
    );
    expect(after.isError).toBe(true);
    // Uses are counted once each answer is out (durable-skill-store.ts): wait for them.
    const listing = async () =>
      (await api(app, "")).body.skills.find((s: { name: string }) => s.name === name);
    let listed = await listing();
    for (let i = 0; i < 400 && !(listed.lastError && listed.uses >= 4); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      listed = await listing();
    }
    expect(listed).toMatchObject({ name, version: 1, latest: 2, tool: "code" });
    expect(listed.uses).toBeGreaterThanOrEqual(4);
    // The last failed run that called it: the one above, with the version it ran.
    expect(listed.lastError).toMatchObject({ version: 1 });
    expect(listed.lastError.message).toMatch(/after the skill/);

    // The skills' TypeScript, for when the description lists names only.
    const declared = text0(await call(app, "async () => skills.declarations()"));
    expect(declared).toMatch(/declare const skills: \{/);
    expect(declared).toMatch(new RegExp(`${name}\\(input: \\w+Input\\)`));
    expect(declared).toMatch(/a: number;/);
    expect(declared).toContain("Adds a and b (version 1)."); // rolled back above
    // `search` on /mcp gets its tool's declarations (and nothing else of skills): not this one.
    const client = await connect(app, "/mcp");
    const searched = (await client.callTool({
      name: "search",
      arguments: { code: "async () => [await skills.declarations(), typeof skills.save]" },
    })) as Result;
    await client.close();
    const [searchDeclared, save] = JSON.parse(text0(searched)) as [string, string];
    expect(save).toBe("undefined");
    expect(searchDeclared).not.toContain(name);

    // Delete: gone for new runs at once.
    expect((await api(app, `/${name}`, { method: "DELETE" })).body).toEqual({
      deleted: true,
      name,
    });
    const gone = await call(app, `async () => skills.${name}({ a: 1, b: 1 })`);
    expect(gone.isError).toBe(true);
    expect((await api(app, `/${name}`)).status).toBe(404);
  });

  it("a skill name that is not percent-encoding gets a 400 naming it, not a 500", async () => {
    // `decodeURIComponent("%ff")` threw before the route's checks: any client got the
    // server's bare internal error for a typo.
    const app = configured({});
    const asked = [
      ["%ff", {}],
      ["%ff", { method: "DELETE" }],
      ["%E0%A4%A", {}],
    ] as const;
    for (const [name, init] of asked) {
      const answer = await api(app, `/${name}`, init);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.error.message).toBe(
        `The skill name in the path is not valid percent-encoding: "${name}".`,
      );
    }
  });

  it("refuses a save from a failed run and one with a free variable, with clear messages", async () => {
    const app = configured({});
    const name = unique();
    const failed = await call(
      app,
      saving(name).replace("return answer;", 'throw new Error("boom");'),
    );
    expect(failed.isError).toBe(true);
    expect(failed.content.at(-1)!.text).toMatch(
      new RegExp(`Skill "${name}" was not saved: the run ended with error`),
    );
    const free = await call(
      app,
      `async () => { const base = 1; await skills.save({ name: "${name}", description: "d", input: { type: "object" }, run: async () => base }); }`,
    );
    expect(free.isError).toBe(true);
    expect(free.content[0]!.text).toMatch(/uses `base`, defined outside its function/);
    expect((await api(app, `/${name}`)).status).toBe(404);
  });

  it("an API key has its own set: export from one key, import under another, same answers", async () => {
    const keyA = `key-a-${unique()}-0123456789`;
    const keyB = `key-b-${unique()}-0123456789`;
    const appA = configured({ MCP_API_KEY: keyA });
    const appB = configured({ MCP_API_KEY: keyB });
    const authA = { authorization: `Bearer ${keyA}` };
    const authB = { authorization: `Bearer ${keyB}` };
    const name = unique();
    await call(appA, saving(name), "/mcp/code", authA);
    const answerA = await call(
      appA,
      `async () => skills.${name}({ a: 2, b: 3 })`,
      "/mcp/code",
      authA,
    );
    expect(answerA.content[0]!.text).toBe(JSON.stringify({ sum: 5, projects: true }));
    // Key B does not see key A's skill.
    const notB = await call(appB, `async () => skills.${name}({ a: 2, b: 3 })`, "/mcp/code", authB);
    expect(notB.isError).toBe(true);
    expect((await api(appB, "", {}, authB)).body.skills).toEqual([]);
    expect((await api(appB, "")).status).toBe(401);

    const exported = await api(appA, "/export", {}, authA);
    expect(exported.body.folders).toHaveLength(1);
    const [folder] = exported.body.folders;
    expect(folder.files["SKILL.md"]).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: `));
    expect(Object.keys(folder.files)).toEqual(["SKILL.md", `scripts/${name}.js`]);

    // A malformed SKILL.md is refused naming the problem; nothing is imported.
    const broken = structuredClone(folder);
    broken.files["SKILL.md"] = broken.files["SKILL.md"].replace(/^---\n/, "");
    const refused = await api(
      appB,
      "/import",
      { method: "POST", body: JSON.stringify({ folders: [folder, broken] }) },
      authB,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/SKILL.md does not start with YAML front matter/);
    expect((await api(appB, "", {}, authB)).body.skills).toEqual([]);

    const imported = await api(
      appB,
      "/import",
      { method: "POST", body: JSON.stringify(exported.body) },
      authB,
    );
    expect(imported.body).toEqual({ imported: [{ name, version: 1 }] });
    const answerB = await call(
      appB,
      `async () => skills.${name}({ a: 2, b: 3 })`,
      "/mcp/code",
      authB,
    );
    expect(answerB.content[0]!.text).toBe(answerA.content[0]!.text);
  });

  it("an import that would pass the skills limit saves none of its skills", async () => {
    // The folders were checked first, but the saves went one by one: the first was kept when
    // the second went past SKILLS_MAX_PER_PRINCIPAL, and the caller got only a 400.
    const key = `key-i-${unique()}-0123456789`;
    const auth = { authorization: `Bearer ${key}` };
    const app = configured({ MCP_API_KEY: key, SKILLS_MAX_PER_PRINCIPAL: "2" } as AppSettings);
    const kept = unique();
    await call(app, saving(kept), "/mcp/code", auth);
    const exported = (await api(app, "/export", {}, auth)).body;
    const [folder] = exported.folders;
    const renamed = (to: string) => ({
      folder: to,
      files: {
        "SKILL.md": folder.files["SKILL.md"].replaceAll(kept, to),
        [`scripts/${to}.js`]: folder.files[`scripts/${kept}.js`],
      },
    });
    const [first, second] = [unique(), unique()];
    const refused = await api(
      app,
      "/import",
      { method: "POST", body: JSON.stringify({ folders: [renamed(first), renamed(second)] }) },
      auth,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/You already have 2 skills, the most allowed/);
    expect((await api(app, "", {}, auth)).body.skills.map((s: { name: string }) => s.name)).toEqual(
      [kept],
    );
    // One new name fits: it is imported, with a new version of the kept one beside it.
    const imported = await api(
      app,
      "/import",
      { method: "POST", body: JSON.stringify({ folders: [folder, renamed(first)] }) },
      auth,
    );
    expect(imported.body).toEqual({
      imported: [
        { name: kept, version: 2 },
        { name: first, version: 1 },
      ],
    });
    // Two folders of one name are refused, naming it, before anything is saved.
    const twice = await api(
      app,
      "/import",
      { method: "POST", body: JSON.stringify({ folders: [folder, folder] }) },
      auth,
    );
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toContain(
      `Two folders of the import hold a skill named "${kept}"`,
    );
    expect((await api(app, `/${kept}`, {}, auth)).body.skill.version).toBe(2);
  });

  it("an import nested past the shape limit is refused unparsed, naming the limit (issue #40)", async () => {
    // Up to 4 MiB of a caller's choosing: a parse would build every value of it on the host.
    const key = `key-d-${unique()}-0123456789`;
    const auth = { authorization: `Bearer ${key}` };
    const app = configured({ MCP_API_KEY: key });
    const levels = 100_000;
    const deep = `{"folders":${"[".repeat(levels)}${"]".repeat(levels)}}`;
    const refused = await api(app, "/import", { method: "POST", body: deep }, auth);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_request");
    expect(refused.body.error.message).toMatch(/nests 100,001 levels deep; .* at most 64/);
  });

  it("a deleted skill saved again continues its numbering (run records stay unambiguous)", async () => {
    const key = `key-v-${unique()}-0123456789`;
    const auth = { authorization: `Bearer ${key}` };
    const app = configured({ MCP_API_KEY: key });
    const name = unique();
    await call(app, saving(name), "/mcp/code", auth);
    await call(app, saving(name, 2), "/mcp/code", auth);
    expect((await api(app, `/${name}`, { method: "DELETE" }, auth)).status).toBe(200);
    const again = await call(app, saving(name, 3), "/mcp/code", auth);
    expect(again.content.at(-1)!.text).toBe(
      `Saved skill "${name}" as version 3: later programs call it as skills.${name}(input).`,
    );
    expect((await api(app, `/${name}?version=2`, {}, auth)).status).toBe(404);
  });

  it("OAuth users each see and call only their own skills", async () => {
    const settings = { ...env, OAUTH: "on", OAUTH_PASSWORD: "correct horse battery staple" };
    const app = createApp({ specs: COMPACT_SPECS, toolsListTokens: TOOLS_LIST_TOKENS });
    const as = (user: string): WorkerFetch => {
      const authInfo: AuthInfo = {
        token: `t-${user}`,
        clientId: "client",
        scopes: [],
        extra: { props: { userId: user } },
      };
      return (input, init) =>
        app.route(
          new Request(input, init),
          settings as unknown as Cloudflare.Env & AppSettings,
          authInfo,
        );
    };
    const alice = as(`alice-${unique()}`);
    const bob = as(`bob-${unique()}`);
    const name = unique();
    const saved = await call(alice, saving(name));
    expect(saved.isError, saved.content.at(-1)?.text).toBeFalsy();
    expect((await call(alice, `async () => skills.${name}({ a: 1, b: 2 })`)).isError).toBeFalsy();
    const byBob = await call(bob, `async () => skills.${name}({ a: 1, b: 2 })`);
    expect(byBob.isError).toBe(true);
    expect(byBob.content[0]!.text).toMatch(/skills\..* is not a function|not loaded/);
    expect((await api(bob, "")).body.skills).toEqual([]);
    expect((await api(bob, `/${name}`)).status).toBe(404);
    expect((await api(bob, `/${name}`, { method: "DELETE" })).status).toBe(404);
    expect((await api(alice, "")).body.skills.map((s: { name: string }) => s.name)).toEqual([name]);
  });
});

describe("OAuth through the provider (real access tokens)", () => {
  it("two users of one client: each saves, lists and calls only their own over /mcp/code and /api/skills", async () => {
    const PASSWORD = "correct horse battery staple";
    // With an operator's read-only skill shipped beside the users' own.
    const shipped = {
      name: "double",
      description: "Doubles n (shipped by the operator).",
      input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      code: "async ({ n }) => n * 2",
    };
    const worker = configured({
      OAUTH: "on",
      OAUTH_PASSWORD: PASSWORD,
      LAUNCH_SKILLS: JSON.stringify([shipped]),
    } as AppSettings);
    const client = await registerClient(worker);
    const ana = {
      authorization: `Bearer ${await accessToken(worker, `ana-${unique()}`, client, PASSWORD)}`,
    };
    const bob = {
      authorization: `Bearer ${await accessToken(worker, `bob-${unique()}`, client, PASSWORD)}`,
    };
    const name = unique();
    const saved = await call(worker, saving(name), "/mcp/code", ana);
    expect(saved.isError, saved.content.at(-1)?.text).toBeFalsy();
    expect(
      (await call(worker, `async () => skills.${name}({ a: 1, b: 2 })`, "/mcp/code", ana)).isError,
    ).toBeFalsy();
    expect(
      (await call(worker, `async () => skills.${name}({ a: 1, b: 2 })`, "/mcp/code", bob)).isError,
    ).toBe(true);
    const anas = await api(worker, "", {}, ana);
    expect(anas.status, JSON.stringify(anas.body)).toBe(200);
    expect(anas.body.skills.map((s: { name: string }) => s.name).toSorted()).toEqual(
      ["double", name].toSorted(),
    );
    expect((await api(worker, "", {}, bob)).body.skills).toEqual([
      expect.objectContaining({ name: "double", readOnly: true }),
    ]);
    expect((await api(worker, `/${name}`, { method: "DELETE" }, bob)).status).toBe(404);
    // The operator's skill: both call it; neither overwrites, deletes or rolls it back.
    for (const user of [ana, bob]) {
      const doubled = await call(worker, "async () => skills.double({ n: 21 })", "/mcp/code", user);
      expect(doubled.content[0]!.text).toBe("42");
      const overwrite = await call(
        worker,
        `async () => skills.save({ name: "double", description: "mine", input: { type: "object" }, run: async () => 0 })`,
        "/mcp/code",
        user,
      );
      expect(overwrite.isError).toBe(true);
      expect(overwrite.content[0]!.text).toMatch(
        /read-only skill the operator ships .* cannot be overwritten/,
      );
      expect((await api(worker, "/double", { method: "DELETE" }, user)).status).toBe(400);
      expect(
        (await api(worker, "/double/rollback", { method: "POST", body: '{"version":1}' }, user))
          .status,
      ).toBe(400);
    }
    expect(
      (await call(worker, "async () => skills.double({ n: 5 })", "/mcp/code", bob)).content[0]!
        .text,
    ).toBe("10");
    // No token: the provider refuses before the route.
    expect((await worker("http://localhost/api/skills")).status).toBe(401);
  });
});
