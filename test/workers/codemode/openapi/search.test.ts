// openApiMcpServer search over the Cloudflare spec, and runaway search programs.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { createMcpHandler } from "../../../../src/index";
import { CANARY, cloudflare, cloudflareUpstream } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

describeExecutors((Executor, kind) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const upstream = cloudflareUpstream();
  const handler = createMcpHandler(
    openApiMcpServer({ spec: cloudflare, executor, request: upstream.handler, secrets: [CANARY] }),
  );

  async function search(code: string) {
    const client = await connect(handler);
    const result = await client.callTool({ name: "search", arguments: { code } });
    await client.close();
    expect(result.isError, text(result)).toBeFalsy();
    const body = text(result).split("\n\nConsole output:")[0]!;
    // String results come back as they are; everything else as JSON.
    return /^[[{"]/.test(body) ? JSON.parse(body) : body;
  }

  describe("search over the Cloudflare spec", () => {
    it("finds the rulesets operations", async () => {
      const ops = await search(`async () => {
      const s = await codemode.spec();
      return Object.entries(s.paths).filter(([p]) => p.endsWith("/rulesets")).flatMap(([p, ops]) => Object.entries(ops).map(([m, o]) => m.toUpperCase() + " " + p + " " + o.operationId));
    }`);
      expect(ops).toContain("GET /zones/{zone_id}/rulesets listZoneRulesets");
      expect(ops).toContain("POST /accounts/{account_id}/rulesets createAccountRuleset");
    });

    it("finds the DNS-records operations under /zones/{zone_id}", async () => {
      const ops = await search(`const s = await codemode.spec();
      return Object.keys(s.paths).filter((p) => p.startsWith("/zones/{zone_id}/dns_records")).sort()`);
      expect(ops).toContain("/zones/{zone_id}/dns_records");
      expect(ops).toContain("/zones/{zone_id}/dns_records/{dns_record_id}");
      expect(ops).toContain("/zones/{zone_id}/dns_records/export");
    });

    it("reads one operation by operationId with its parameters and request-body schema, refs resolved", async () => {
      const op = await search(`async () => {
      const s = await codemode.spec();
      for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) {
        if (o.operationId === "dns-records-for-a-zone-create-dns-record") {
          const schema = o.requestBody.content["application/json"].schema;
          return { params: o.parameters.map((p) => p.name + ":" + p.in), variants: schema.oneOf.length, firstType: schema.oneOf[0].allOf?.length ?? 0 };
        }
      }
    }`);
      expect(op.params).toContain("zone_id:path");
      expect(op.variants).toBeGreaterThan(10);
    });

    it("counts tags across all operations, matching the host's count", async () => {
      const counts = await search(`const s = await codemode.spec(); const c = {};
      for (const ops of Object.values(s.paths)) for (const o of Object.values(ops)) for (const t of o.tags ?? []) c[t] = (c[t] ?? 0) + 1;
      return { tags: Object.keys(c).length, dns: c["DNS Records for a Zone"] }`);
      const expected = new Map<string, number>();
      for (const op of cloudflare.operations)
        for (const t of op.tags ?? []) expected.set(t, (expected.get(t) ?? 0) + 1);
      expect(counts).toEqual({ tags: expected.size, dns: expected.get("DNS Records for a Zone") });
    });

    it("returns TypeScript declarations for an operation", async () => {
      const declaration = await search(
        `return await codemode.declaration("dns-records-for-a-zone-create-dns-record")`,
      );
      expect(declaration).toContain("interface DnsRecordsForAZoneCreateDnsRecordRequest");
      expect(declaration).toContain('method: "POST"');
    });

    it("marks cycles instead of expanding them, and the sandbox never sees the credential", async () => {
      const found = await search(
        `const text = JSON.stringify((await codemode.spec()).components); return { circular: text.includes('"$circular"'), bytes: text.length, canary: text.includes(${JSON.stringify(CANARY)}) }`,
      );
      expect(found.circular).toBe(true);
      expect(found.canary).toBe(false);
    });
  });

  describe("one run's changes to the spec", () => {
    it("are never seen by a later run, in search or in execute", async () => {
      // Every place a program can write: the index, an operation's decoded fields, the document
      // itself, and the built-in prototypes (components and what refs reach are read-only; the
      // check would see a change to them too).
      const change = `
      const create = s.paths["/zones/{zone_id}/dns_records"].post;
      create.summary = "MUTATED";
      create.parameters.push({ name: "MUTATED", in: "query" });
      create.requestBody.content["application/json"].schema = { oneOf: [] };
      try { s.components.schemas.MUTATED = true; } catch {}
      delete s.paths["/zones/{zone_id}/rulesets"];
      s.paths["/MUTATED"] = { get: { operationId: "MUTATED" } };
      s.info.title = "MUTATED";
      Object.prototype.MUTATED = true;`;
      // Lists each change it can see; "clean" when there is none.
      const check = `
      const now = s.paths["/zones/{zone_id}/dns_records"].post;
      const seen = Object.entries({
        summary: now.summary === "MUTATED",
        params: now.parameters.some((p) => p.name === "MUTATED"),
        variants: now.requestBody.content["application/json"].schema.oneOf.length === 0,
        schema: Object.hasOwn(s.components.schemas, "MUTATED"),
        deleted: !("/zones/{zone_id}/rulesets" in s.paths),
        added: "/MUTATED" in s.paths,
        title: s.info.title === "MUTATED",
        proto: "MUTATED" in {},
      }).filter(([, v]) => v).map(([k]) => k);
      return seen.length ? seen.join(",") : "clean";`;
      const mutate = `async () => { const s = await codemode.spec(); ${change} return "mutated"; }`;
      const read = `async () => { const s = await codemode.spec(); ${check} }`;
      const client = await connect(handler);
      try {
        expect(text(await client.callTool({ name: "search", arguments: { code: read } }))).toBe(
          "clean",
        );
        // The check sees every change made in its own run (so "clean" below means something).
        const same = `async () => { const s = await codemode.spec(); ${change} ${check} }`;
        expect(text(await client.callTool({ name: "search", arguments: { code: same } }))).toBe(
          "summary,params,variants,deleted,added,title,proto",
        );
        for (const tool of ["search", "execute"]) {
          const done = await client.callTool({ name: tool, arguments: { code: mutate } });
          expect(text(done), tool).toBe("mutated");
          for (const next of ["search", "execute"]) {
            const answer = await client.callTool({ name: next, arguments: { code: read } });
            expect(text(answer), `${tool} then ${next}`).toBe("clean");
          }
        }
      } finally {
        await client.close();
      }
    });
  });

  describe("views a search program changes", () => {
    it("never share a mutable object between two $refs to one schema (issue #42)", async () => {
      // Both operations' zone_id schema is `$ref: #/components/schemas/dns-records_identifier`.
      const seen = await search(`async () => {
      const s = await codemode.spec();
      const post = s.paths["/zones/{zone_id}/dns_records"].post.parameters[0].schema;
      const patch = s.paths["/zones/{zone_id}/dns_records/{dns_record_id}"].patch.parameters.find((p) => p.name === "zone_id").schema;
      const before = JSON.stringify(patch);
      const refused = [];
      try { post.maxLength = 1; } catch (e) { refused.push(e.name); }
      try { post.added = true; } catch (e) { refused.push(e.name); }
      const body = s.paths["/zones/{zone_id}/dns_records"].post.requestBody.content["application/json"].schema;
      try { body.oneOf = []; } catch (e) { refused.push(e.message); }
      const copy = { ...post, maxLength: 1 };
      const component = s.components.schemas["dns-records_identifier"];
      return { refused, unchanged: JSON.stringify(patch) === before, maxLength: patch.maxLength, added: "added" in patch, component: component.maxLength, sameAsComponent: component === patch, copy: copy.maxLength };
    }`);
      expect(seen).toEqual({
        refused: [
          "TypeError",
          "TypeError",
          expect.stringMatching(/^Cannot set "oneOf": .* read-only\. Copy what you change/),
        ],
        unchanged: true,
        maxLength: 32,
        added: false,
        component: 32,
        sameAsComponent: true,
        copy: 1,
      });
    });
  });

  describe("a program that writes into a shared view", () => {
    it("is told why it cannot and what to do instead", async () => {
      const client = await connect(handler);
      try {
        for (const write of ["schema.maxLength = 1", "schema.added = true", "delete schema.type"]) {
          const result = await client.callTool({
            name: "search",
            arguments: {
              code: `async () => { const s = await codemode.spec(); const schema = s.paths["/zones/{zone_id}/dns_records"].post.parameters[0].schema; ${write}; return "written"; }`,
            },
          });
          expect(result.isError, write).toBe(true);
          expect(text(result), write).toMatch(
            /^ERROR: TypeError: Cannot (set|delete) "(maxLength|added|type)": this part of codemode\.spec\(\) is reached through a \$ref and shared .* read-only\. Copy what you change/,
          );
        }
      } finally {
        await client.close();
      }
    });
  });

  describe("a program that writes into a frozen object of its own", () => {
    it("gets the engine's words, with no hint about the spec (issue #42)", async () => {
      const client = await connect(handler);
      try {
        for (const write of ["mine.maxLength = 1", "mine.added = true", "delete mine.type"]) {
          const result = await client.callTool({
            name: "search",
            arguments: {
              code: `async () => { const s = await codemode.spec(); const mine = Object.freeze({ ...s.paths["/zones/{zone_id}/dns_records"].post.parameters[0].schema }); ${write}; return "written"; }`,
            },
          });
          expect(result.isError, write).toBe(true);
          expect(text(result), write).toMatch(/^ERROR: TypeError: /);
          expect(text(result), write).not.toMatch(/codemode\.spec|\$ref|Copy what you change/);
        }
      } finally {
        await client.close();
      }
    });

    it("inherits from a shared view as from any frozen object", async () => {
      const seen = await search(`async () => {
      const s = await codemode.spec();
      const schema = s.paths["/zones/{zone_id}/dns_records"].post.parameters[0].schema;
      const child = Object.create(schema);
      child.added = true;
      return { child: child.added, inherited: child.maxLength, view: "added" in schema, frozen: Object.isFrozen(schema), schema, list: s.components.schemas["dns-records_identifier"] && [schema, schema] };
    }`);
      // A view returned as the result reaches the client as its JSON, as any object does.
      const schema = { type: "string", maxLength: 32, description: "Identifier" };
      expect(seen).toMatchObject({ child: true, inherited: 32, view: false, frozen: true });
      expect(seen.schema).toMatchObject(schema);
      expect(seen.list).toEqual([seen.schema, seen.schema]);
    });
  });

  describe("a program that reads past the spec's index", () => {
    // A search ships the spec's index first (src/codemode/index-first-search.ts); a program the
    // guess missed (it names no field: the key is computed) reads past it, and whatever it does
    // with that read's error, its answer is the one the whole spec gives, logged once.
    const key = `["request", "Body"].join("")`;
    const dnsCreate = `(await codemode.spec()).paths["/zones/{zone_id}/dns_records"].post`;

    it("gets the whole spec's answer", async () => {
      const body = await search(`const k = ${key}; const o = ${dnsCreate};
      return Object.keys(o[k].content)`);
      expect(body).toEqual(["application/json"]);
    });

    it("gets it even when it catches the read's error", async () => {
      const body = await search(`const k = ${key}; const o = ${dnsCreate};
      try { return Object.keys(o[k].content); } catch (e) { return "caught " + e.name; }`);
      expect(body).toEqual(["application/json"]);
    });

    it("gets it even when the read is in a getter of what it returns (hostile)", async () => {
      // The harness reads the getter while it serializes the answer, after the program's
      // promise settled: the catch there must not turn the index run's answer into the run's.
      const body = await search(`const k = ${key}; const o = ${dnsCreate};
      return { get v() { try { return Object.keys(o[k].content); } catch { return "index run"; } } }`);
      expect(body).toEqual({ v: ["application/json"] });
      // A finally has no budget tick of its own: its return replaced the read's error, and the
      // index run's value was the answer.
      const last = await search(`const k = ${key}; const o = ${dnsCreate};
      return { u: undefined, get v() { let r = "index run"; try { r = Object.keys(o[k].content); } finally { return r; } } }`);
      expect(JSON.stringify(last)).toContain("application/json");
    });

    it("gets it even when it collects the error with Promise.allSettled and goes on", async () => {
      // No budget tick runs between the collected error and the return: only the harness's
      // own end of the run keeps the index run's answer ("rejected") from being the answer.
      const client = await connect(handler);
      const result = await client.callTool({
        name: "search",
        arguments: {
          code: `const k = ${key}; const o = ${dnsCreate}; console.log("reading");
          const [r] = await Promise.allSettled([Promise.resolve().then(() => o[k])]);
          return r.status`,
        },
      });
      await client.close();
      expect(result.isError, text(result)).toBeFalsy();
      const [answer, logs] = text(result).split("\n\nConsole output:");
      expect(answer).toBe("fulfilled");
      expect(logs!.match(/reading/g)).toHaveLength(1);
    });
  });

  describe("a program that waits out its timeout on the index, then reads past it", () => {
    it("gets no second timeout of the executor's own (hostile)", async () => {
      // The timeout is the executor's, not the tool's: the second run used to get all of it
      // again, holding its isolate (locally a runner) twice as long as any other run may.
      const timed = new Executor({ loader: env.LOADER, limits: { timeoutMs: 1_500 } });
      const server = createMcpHandler(
        openApiMcpServer({ spec: cloudflare, executor: timed, request: upstream.handler }),
      );
      const client = await connect(server);
      const result = await client.callTool({
        name: "search",
        arguments: {
          code: `const o = ${"(await codemode.spec()).paths['/zones/{zone_id}/dns_records'].post"};
          await new Promise((r) => setTimeout(r, 1_000));
          return Object.keys(o[["request", "Body"].join("")].content)`,
        },
      });
      await client.close();
      // The shared worker ships the whole spec at once: one run, within its time.
      if (kind === "shared-worker") expect(text(result)).toBe('["application/json"]');
      else expect(text(result)).toMatch(/^TIMEOUT: .*within \d+ ms/);
    });
  });

  describe("runaway search programs", () => {
    it("stops a program that serializes the whole spec, via the operation budget", async () => {
      const tight = createMcpHandler(
        openApiMcpServer({
          spec: cloudflare,
          executor,
          request: upstream.handler,
          limits: { maxOperations: 100_000 },
        }),
      );
      const client = await connect(tight);
      const result = await client.callTool({
        name: "search",
        arguments: { code: "return JSON.stringify(await codemode.spec()).length" },
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^LIMIT: LimitError: Operation budget of 100000 exceeded/);
      // The server keeps serving.
      const ok = await client.callTool({
        name: "search",
        arguments: { code: "return Object.keys((await codemode.spec()).paths).length" },
      });
      expect(text(ok)).toBe("965");
    });
  });
});
