/**
 * A web page's requests to the local server (src/app/cross-site.ts). A page the user opens on any
 * site can send "simple" requests (a POST with a `text/plain` body, no custom header: no
 * preflight) to http://127.0.0.1:8787, and the default local server has no key: the page cannot
 * read the answer, but what the request does is done. The MCP routes refuse a foreign `Origin`
 * (src/mcp/common/guards.ts); the app's other routes did not, so a page on any site imported a
 * skill into the user's server (a program and its instructions that later runs would find),
 * ran programs through `/api/search`, and wrote to the demo API. Every app route now refuses a
 * browser request from another site before anything runs; the server's own pages (the status
 * page's search form and consoles, same origin) and local tools (a localhost origin) still pass.
 */
import { describe, expect, it } from "vitest";
import { configured, entry } from "../helpers";

const LOCAL = "http://127.0.0.1:8787";
const EVIL = "https://evil.example";

/** A skill folder as `GET /api/skills/export` answers it. */
function folder(name: string) {
  return {
    folder: name,
    files: {
      "SKILL.md": `---\nname: ${name}\ndescription: "Planted by a web page."\n---\n\n# ${name}\n\n## Input schema\n\n\`\`\`json\n{ "type": "object" }\n\`\`\`\n`,
      [`scripts/${name}.js`]: "async (input) => 'planted'",
    },
  };
}

/** A simple request, as a page's `fetch(…, { mode: "no-cors" })` sends it. */
function simplePost(origin: string | undefined, body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", ...(origin ? { origin } : {}) },
    body: JSON.stringify(body),
  };
}

type Listed = { skills: { name: string }[] };

describe("a web page's requests to the local server", () => {
  it("cannot import a skill from another site", async () => {
    const app = entry;
    const name = `planted${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
    const refused = await app(
      `${LOCAL}/api/skills/import`,
      simplePost(EVIL, { folders: [folder(name)] }),
    );
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "cross_site_request",
    );
    const listed = (await (await app(`${LOCAL}/api/skills`)).json()) as Listed;
    expect(listed.skills.map((s) => s.name)).not.toContain(name);
  });

  it("cannot run a program through /api/search, write the demo API or read runs from another site", async () => {
    const app = entry;
    for (const [path, init] of [
      ["/api/search", simplePost(EVIL, { code: "async () => 1" })],
      ["/demo-api/projects", simplePost(EVIL, { name: "planted" })],
      ["/api/runs", { headers: { origin: EVIL } }],
      ["/api/skills", { headers: { origin: "null" } }],
      ["/api/search", simplePost("https://attacker.workers.dev", { code: "async () => 1" })],
    ] as const) {
      const response = await app(`${LOCAL}${path}`, init);
      expect(response.status, `${path} ${JSON.stringify(init.headers)}`).toBe(403);
    }
  });

  it("serves the server's own pages, local tools and clients that send no Origin", async () => {
    const app = entry;
    for (const origin of [LOCAL, "http://localhost:8787", "http://localhost:6274", undefined]) {
      const response = await app(
        `${LOCAL}/api/search`,
        simplePost(origin, { code: "async () => 'ok'" }),
      );
      expect(response.status, String(origin)).toBe(200);
      expect(((await response.json()) as { text: string }).text).toContain("ok");
    }
  });

  // The status (docs/security.md, "Other sites' pages"): a GET of it does nothing, and its answer
  // carries no CORS header, so a page of another site gets it opaque and cannot read it. Were a
  // wrapper to add one (the OAuth provider does on its API routes), the status would be a read
  // for any page; this test says so first.
  it("lets another site's page send, never read, the status", async () => {
    const withOAuth = configured({ OAUTH: "on", OAUTH_PASSWORD: "cross-site-passphrase-0123" });
    for (const [mode, app] of [
      ["plain", entry],
      ["OAuth", withOAuth],
    ] as const) {
      for (const path of ["/api/status", "/"]) {
        const response = await app(`${LOCAL}${path}`, { headers: { origin: EVIL } });
        await response.arrayBuffer();
        expect(response.status, `${mode} ${path}`).toBe(200);
        expect(response.headers.get("access-control-allow-origin"), `${mode} ${path}`).toBeNull();
      }
    }
  });
});
