// Forwarded tokens that may keep skills are bounded (#44, attack-e): with FORWARD_CALLER_TOKEN=on
// anyone may send any bearer token and each is a principal, so a loop of random tokens saving
// one skill each would leave a Durable Object per token for ever. Past SKILLS_MAX_TOKEN_OWNERS
// registered owners a new token's save is refused, naming the setting; registered owners keep
// saving.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { connect } from "../../../helpers/clients/mcp-client";
import { configured } from "../helpers";

const SAVE = `async () => { await skills.save({ name: "twice", description: "Doubles n.", input: { type: "object" }, run: async ({ n }) => n * 2 }); return 1; }`;

describe("forwarded-token owners that keep skills", () => {
  it(
    "past SKILLS_MAX_TOKEN_OWNERS a new token's save is refused; a listed one still saves",
    {
      timeout: 300_000,
    },
    async () => {
      // Other test files of this project may have registered owners already (the directory is
      // one object): the bound is two more than are listed now.
      const directory = env.SKILLS.get(env.SKILLS.idFromName("#owners"));
      const listed = await runInDurableObject(directory, (_, state) => {
        state.storage.sql.exec("CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY)");
        return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM owners").one().n;
      });
      const max = listed + 2;
      const app = configured({
        API_BASE_URL: "https://api.example.com",
        FORWARD_CALLER_TOKEN: "on",
        SKILLS_MAX_TOKEN_OWNERS: String(max),
      } as AppSettings);
      const save = async (token: string) => {
        const client = await connect(app, "/mcp", {
          headers: { authorization: `Bearer ${token}` },
        });
        const result = (await client.callTool({
          name: "execute",
          arguments: { code: SAVE },
        })) as { content: { text: string }[]; isError?: boolean };
        await client.close();
        return result.content.map((c) => c.text).join("\n");
      };
      const tokens = Array.from({ length: 4 }, () => `tok-${crypto.randomUUID()}`);
      const answers = [];
      for (const token of tokens) answers.push(await save(token));
      expect(answers.slice(0, 2).every((a) => /Saved skill "twice" as version 1/.test(a))).toBe(
        true,
      );
      for (const refused of answers.slice(2)) {
        expect(refused).toMatch(new RegExp(`at most ${max} forwarded tokens`));
        expect(refused).toMatch(/SKILLS_MAX_TOKEN_OWNERS/);
      }
      // An owner already listed is not a new one: its next save goes through.
      expect(await save(tokens[0]!)).toMatch(/Saved skill "twice" as version 2/);
      // The directory is full: no other owner is listed.
      expect(await directory.registerOwner("token:probe", max)).toBe(false);
    },
  );
});
