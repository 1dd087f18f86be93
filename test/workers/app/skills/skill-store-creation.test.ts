// Reads never create a principal's skills store (#44): with FORWARD_CALLER_TOKEN=on every
// distinct bearer token is a principal (`token:<hash>`), so a caller that lists skills with
// random tokens would otherwise leave one SQLite database per token behind. Only a write (a
// save, an import) may create one.
import { listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { connect } from "../../../helpers/clients/mcp-client";
import { durableSkillStore } from "../../../../src/app/skills/durable-skill-store";
import { configured } from "../helpers";

const FORWARDING = {
  API_BASE_URL: "https://api.example.com",
  FORWARD_CALLER_TOKEN: "on",
} as AppSettings;

const randomToken = () => `tok-${crypto.randomUUID()}`;

async function storedIds(): Promise<Set<string>> {
  return new Set((await listDurableObjectIds(env.SKILLS)).map((id) => id.toString()));
}

/** The owner key skill-owner.ts gives a forwarded token. */
async function ownerKey(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `token:${hex.slice(0, 32)}`;
}

describe("skills stores are created by writes only", () => {
  it("1,000 listings with random forwarded tokens create no storage", async () => {
    // Through the routes a caller reaches: /api/skills, and on /mcp a tools/list (which reads
    // the list for the description) and a run that names `skills` (which loads them).
    const app = configured(FORWARDING);
    const routed = Array.from({ length: 20 }, randomToken);
    for (const token of routed) {
      const headers = { authorization: `Bearer ${token}` };
      const response = await app("http://localhost/api/skills", { headers });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ skills: [] });
    }
    for (const token of routed.slice(0, 5)) {
      const client = await connect(app, "/mcp", { headers: { authorization: `Bearer ${token}` } });
      await client.listTools();
      const run = (await client.callTool({
        name: "execute",
        arguments: { code: "async () => typeof skills.nothing" },
      })) as { content: { text: string }[] };
      expect(run.content[0]!.text).toBe("undefined");
      await client.close();
    }
    // The rest straight at the store those routes use (the machine is shared: 1,000 full
    // requests would take minutes), each read a principal's Durable Object answers.
    const store = durableSkillStore(env.SKILLS);
    const direct = Array.from({ length: 980 }, randomToken);
    for (let i = 0; i < direct.length; i += 20)
      await Promise.all(
        direct.slice(i, i + 20).map(async (token) => {
          const owner = await ownerKey(token);
          expect(await store.list(owner)).toEqual([]);
          expect(await store.get(owner, "x")).toBeUndefined();
        }),
      );
    const stored = await storedIds();
    const tokens = [...routed, ...direct];
    const created = (
      await Promise.all(
        tokens.map(async (t) => env.SKILLS.idFromName(await ownerKey(t)).toString()),
      )
    ).filter((id) => stored.has(id));
    expect(tokens).toHaveLength(1_000);
    expect(created).toEqual([]);
  }, 600_000);

  it(
    "a save creates the principal's store, and its list then answers it",
    { timeout: 300_000 },
    async () => {
      const app = configured(FORWARDING);
      const token = randomToken();
      const auth = { authorization: `Bearer ${token}` };
      const client = await connect(app, "/mcp", { headers: auth });
      const saved = (await client.callTool({
        name: "execute",
        arguments: {
          code: `async () => { await skills.save({ name: "twice", description: "Doubles n.", input: { type: "object" }, run: async ({ n }) => n * 2 }); return 1; }`,
        },
      })) as { content: { text: string }[] };
      await client.close();
      expect(saved.content.at(-1)!.text).toMatch(/Saved skill "twice" as version 1/);
      expect((await storedIds()).has(env.SKILLS.idFromName(await ownerKey(token)).toString())).toBe(
        true,
      );
      const listed = await app("http://localhost/api/skills", { headers: auth });
      expect(
        ((await listed.json()) as { skills: { name: string }[] }).skills.map((s) => s.name),
      ).toEqual(["twice"]);
    },
  );
});
