// Packed specs: a program decodes only what it reads of the Cloudflare spec.
import { describe, expect, it } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import {
  openPackedSpec,
  packedIndex,
  packedIndexLength,
  packedOperationFields,
  packSpec,
} from "../../../src/openapi/spec-pack";
import { cloudflareSpec, oasExample } from "./fixtures";

function packedView(compact: ReturnType<typeof loadSpec>["compact"]) {
  const bytes = packSpec(compact);
  if (!bytes) throw new Error("not packable");
  return openPackedSpec(bytes) as any;
}

/**
 * Runs `read` with every `JSON.parse` counted (a decode of a packed part); `decodes()` is the
 * count so far.
 */
function countingDecodes(read: (decodes: () => number) => void): void {
  let count = 0;
  const original = JSON.parse;
  JSON.parse = ((text: string, reviver?: never) => (
    count++,
    original(text, reviver)
  )) as typeof JSON.parse;
  try {
    read(() => count);
  } finally {
    JSON.parse = original;
  }
}

describe("packed specs", () => {
  it.each([
    "3.0/json/circular.json",
    "3.0/json/petstore.json",
    "2.0/json/petstore.json",
    "3.1/json/petstore.json",
  ])("read exactly like the plain document: %s", (file) => {
    const spec = loadSpec(oasExample(file));
    expect(JSON.parse(JSON.stringify(packedView(spec.compact)))).toEqual(
      JSON.parse(JSON.stringify(spec.document())),
    );
  });

  it("decode only what a program reads (Cloudflare spec)", () => {
    const spec = loadSpec(cloudflareSpec());
    const bytes = packSpec(spec.compact)!;
    countingDecodes((decodes) => {
      const doc = openPackedSpec(bytes) as any;
      const index = Object.entries(doc.paths).flatMap(([p, ops]: [string, any]) =>
        Object.entries(ops).map(
          ([m, o]: [string, any]) =>
            `${m} ${p} ${o.operationId} ${o.summary} ${(o.tags ?? []).length}`,
        ),
      );
      expect(index).toHaveLength(1533);
      // The whole index costs one decode: the header.
      expect(decodes()).toBe(1);
      const create = doc.paths["/zones/{zone_id}/dns_records"].post;
      expect(create.requestBody.content["application/json"].schema.oneOf.length).toBeGreaterThan(
        10,
      );
      expect(decodes()).toBeLessThan(100);
    });
    expect(bytes.byteLength).toBeLessThan(5 * 1024 * 1024);
  });

  it("keep descriptions out of the index: one decode for all of them, on first read", () => {
    // Descriptions are most of the header's text (540 of GitHub's 754 KB): a program that never
    // reads one no longer parses them, and one that reads them all pays one decode.
    const spec = loadSpec(cloudflareSpec());
    const bytes = packSpec(spec.compact)!;
    const plain = spec.document() as any;
    countingDecodes((decodes) => {
      const doc = openPackedSpec(bytes) as any;
      const ops = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, op]) => ({ path, method, op })),
      );
      expect(ops.map(({ op }) => op.summary).filter(Boolean).length).toBeGreaterThan(1000);
      expect(decodes()).toBe(1);
      const described = ops.filter(({ op }) => typeof op.description === "string");
      expect(described.length).toBeGreaterThan(100);
      expect(decodes()).toBe(2);
      for (const { path, method, op } of ops) {
        expect(op.description).toBe(plain.paths[path][method].description);
        // Present exactly where the spec has one, listed right after the index fields.
        expect(Object.hasOwn(op, "description")).toBe(
          Object.hasOwn(plain.paths[path][method], "description"),
        );
      }
      const op = described[0]!.op;
      const keys = Object.keys(op);
      expect(keys.indexOf("description")).toBe(
        keys.filter((k) => ["operationId", "summary", "tags", "deprecated"].includes(k)).length,
      );
      expect(decodes()).toBe(2);
    });
    // Assigning replaces the description of that operation only; a second open is untouched.
    const first = openPackedSpec(bytes) as any;
    const post = first.paths["/zones/{zone_id}/dns_records"].post;
    const before = post.description;
    post.description = "changed";
    expect(post.description).toBe("changed");
    expect(
      (openPackedSpec(bytes) as any).paths["/zones/{zone_id}/dns_records"].post.description,
    ).toBe(before);
  });

  it("cut after the index: reads the index and descriptions as the whole does, and nothing else", () => {
    // A search ships this part first (src/codemode/index-first-search.ts): 0.39 of Cloudflare's
    // 4.2 MB. Whatever a program reads of it must be what the whole spec answers, and a read of
    // anything else must reach `missing`, never an answer made of fewer bytes.
    const spec = loadSpec(cloudflareSpec());
    const whole = packSpec(spec.compact)!;
    const index = packedIndex(whole);
    expect(index.byteLength).toBe(packedIndexLength(whole));
    expect(index.byteLength).toBeLessThan(whole.byteLength / 8);
    const missed: string[] = [];
    const missing = (): never => {
      missed.push("read");
      throw new Error("past the index");
    };
    const cut = openPackedSpec(index, undefined, missing) as any;
    const full = openPackedSpec(whole) as any;
    const listed = (doc: any) =>
      Object.entries<any>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, op]) => ({
          path,
          method,
          keys: Object.keys(op),
          short: [op.operationId, op.summary, op.tags, op.deprecated, op.description],
        })),
      );
    expect(listed(cut)).toEqual(listed(full));
    expect(cut.info).toEqual(full.info);
    expect(missed).toEqual([]);
    const post = cut.paths["/zones/{zone_id}/dns_records"].post;
    expect(() => post.requestBody).toThrow("past the index");
    expect(() => cut.components).toThrow("past the index");
    expect(missed).toEqual(["read", "read"]);
    // Without a `missing`, a read past the cut says so instead of answering.
    const bare = openPackedSpec(index) as any;
    expect(() => bare.paths["/zones/{zone_id}/dns_records"].post.parameters).toThrow(RangeError);
  });

  it("name the operation fields kept out of the index", () => {
    const fields = packedOperationFields(packSpec(loadSpec(cloudflareSpec()).compact)!);
    expect(fields).toEqual(expect.arrayContaining(["parameters", "requestBody", "responses"]));
    // Index fields and descriptions are read from the index part.
    for (const field of ["operationId", "summary", "tags", "deprecated", "description"])
      expect(fields).not.toContain(field);
  });

  it("shares one read-only view between two $refs to one schema (issue #42)", () => {
    const doc = packedView(loadSpec(cloudflareSpec()).compact);
    const post = doc.paths["/zones/{zone_id}/dns_records"].post;
    const patch = doc.paths["/zones/{zone_id}/dns_records/{dns_record_id}"].patch;
    // Both operations' zone_id schema is `$ref: #/components/schemas/dns-records_identifier`.
    const here = post.parameters[0].schema;
    const there = patch.parameters.find((p: { name: string }) => p.name === "zone_id").schema;
    const original = JSON.stringify(there);
    // The resolution work is reused (one object) and nothing can change it for the other place.
    expect(here).toBe(there);
    expect(Object.isFrozen(here)).toBe(true);
    expect(() => (here.maxLength = 1)).toThrow(TypeError);
    expect(() => (here.added = true)).toThrow(TypeError);
    expect(() => delete here.maxLength).toThrow(TypeError);
    expect(JSON.stringify(there)).toBe(original);
    // An object-valued field says why and what to do.
    const body = post.requestBody.content["application/json"].schema;
    expect(Object.isFrozen(body.oneOf)).toBe(true);
    expect(() => (body.oneOf = [])).toThrow(
      /shared by every place .* read-only\. Copy what you change/,
    );
    expect(() => body.oneOf.push({})).toThrow(TypeError);
    // A copy is the program's own.
    const copy = { ...here, maxLength: 1 };
    expect(copy.maxLength).toBe(1);
    expect(JSON.stringify(there)).toBe(original);
    // The components are what refs point to: the same read-only objects.
    expect(doc.components.schemas["dns-records_identifier"]).toBe(here);
    expect(Object.isFrozen(doc.components.schemas)).toBe(true);
    // The operation's own parts stay mutable, and stay one object per place.
    post.requestBody.content["application/json"].schema = { replaced: true };
    expect(post.requestBody.content["application/json"].schema).toEqual({ replaced: true });
    expect(post.requestBody).toBe(post.requestBody);
  });

  it("operations keep their fields' order, enumerability and assignment semantics", () => {
    const spec = loadSpec(oasExample("3.0/json/petstore.json"));
    const doc = packedView(spec.compact);
    const plain = spec.document() as any;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(new Set(Object.keys(op))).toEqual(new Set(Object.keys(plain.paths[path][method])));
        for (const key of Object.keys(op))
          expect(Object.getOwnPropertyDescriptor(op, key)?.enumerable).toBe(true);
      }
    }
    const op = doc.paths["/pet"].post;
    const before = op.requestBody;
    op.requestBody = { replaced: true };
    expect(op.requestBody).toEqual({ replaced: true });
    expect(Object.getOwnPropertyDescriptor(op, "requestBody")?.writable).toBe(true);
    // Another operation's field of the same name is untouched.
    expect(doc.paths["/pet"].put.requestBody).not.toEqual({ replaced: true });
    expect(before).toBeTypeOf("object");
    delete op.responses;
    expect("responses" in op).toBe(false);
    // An object inheriting from an operation reads the operation's fields.
    const child = Object.create(doc.paths["/pet"].put);
    expect(child.requestBody).toBe(doc.paths["/pet"].put.requestBody);
  });

  it("gives every operation the same accessor per heavy field (no per-operation closures)", () => {
    // What made opening the Cloudflare spec cheap: one getter per field name, so V8 shares the
    // operations' maps and opening allocates nothing per field (per-operation closures were
    // most of `codemode.spec()` in a fresh isolate).
    const doc = packedView(loadSpec(cloudflareSpec()).compact);
    const ops = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item));
    const getters = new Set(ops.map((op) => Object.getOwnPropertyDescriptor(op, "responses")?.get));
    expect(getters.size).toBe(1);
    expect(ops[0].responses).not.toBe(ops[1].responses);
  });

  it("are pure ASCII, and non-ASCII text reads back unchanged", () => {
    // One em dash made the Cloudflare header a two-byte string: slower to parse, twice the GC.
    // (After the 4-byte header length, which is binary.)
    const bytes = packSpec(loadSpec(cloudflareSpec()).compact)!;
    expect(bytes.subarray(4).every((byte) => byte < 0x80)).toBe(true);
    const spec = loadSpec(oasExample("3.0/json/petstore.json"));
    const op = spec.compact.operations.find((o) => o.operationId === "addPet")!;
    const text = "Añade — 宠物 🐾 \u2028 \ud800";
    (op as { summary?: string }).summary = text;
    (spec.compact.components as any).schemas.Pet.description = `🐾 ${text}`;
    const doc = packedView(spec.compact);
    expect(doc.paths["/pet"].post.summary).toBe(text);
    expect(doc.components.schemas.Pet.description).toBe(`🐾 ${text}`);
  });

  it("two opens of the same bytes share nothing a program can change", () => {
    const bytes = packSpec(loadSpec(oasExample("3.0/json/petstore.json")).compact)!;
    const first = openPackedSpec(bytes) as any;
    // (requestBody is a $ref here, so read-only; the operation's field itself is the program's.)
    first.paths["/pet"].post.requestBody = "changed";
    expect(() => (first.components.schemas.Pet.properties = "changed")).toThrow(TypeError);
    first.paths["/pet"].put.summary = "changed";
    delete first.paths["/pet/{petId}"];
    const second = openPackedSpec(bytes) as any;
    expect(second.paths["/pet"].post.requestBody.content).toBeTypeOf("object");
    expect(first.paths["/pet"].post.requestBody).toBe("changed");
    expect(second.components.schemas.Pet.properties).toBeTypeOf("object");
    expect(second.paths["/pet"].put.summary).not.toBe("changed");
    expect(second.paths["/pet/{petId}"]).toBeDefined();
  });
});
