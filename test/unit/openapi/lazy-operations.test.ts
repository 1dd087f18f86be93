// An opened packed spec's operations: heavy fields defined on first touch, read as before.
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadSpec } from "../../../src/openapi/openapi-spec";
import { openPackedSpec, packedIndex, packSpec } from "../../../src/openapi/spec-pack";
import { cloudflareSpec, oasExample } from "./fixtures";

const petstore = () => loadSpec(oasExample("3.0/json/petstore.json"));

/** A fresh packed view of the petstore, and the plain document it must read like. */
function opened() {
  const spec = petstore();
  return { doc: openPackedSpec(packSpec(spec.compact)!) as any, plain: spec.document() as any };
}

/** Deep plain copy of what a program reads (JSON, as the harness's own encoding walks it). */
const read = (value: unknown) => JSON.parse(JSON.stringify(value));

afterEach(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

describe("operations of an opened packed spec", () => {
  it("define no accessor while a program reads only index fields", async () => {
    // Defining ~8,100 accessors on the Cloudflare spec's 1,533 operations was most of opening
    // it in a fresh isolate; a walk over ids, summaries and tags needs none of them.
    const spy = vi.spyOn(Object, "defineProperties");
    vi.resetModules();
    // The module captures `Object.defineProperties` when it loads: load it after the spy.
    const pack = await import("../../../src/openapi/spec-pack");
    const bytes = pack.packSpec(loadSpec(cloudflareSpec()).compact)!;
    const doc = pack.openPackedSpec(bytes) as any;
    const walked = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(
        ([method, op]) => `${method} ${path} ${op.operationId} ${op.summary} ${op.tags}`,
      ),
    );
    expect(walked).toHaveLength(1533);
    // (The test runner's `expect` defines properties of its own: count the operations'.)
    const onOperations = () =>
      spy.mock.calls.filter(([, fields]) => Object.hasOwn(fields, "responses")).length;
    expect(onOperations()).toBe(0);
    // A heavy field of one operation defines that operation's accessors, and only its.
    const post = doc.paths["/zones/{zone_id}/dns_records"].post;
    expect(post.requestBody.content).toBeTypeOf("object");
    expect(onOperations()).toBe(1);
    expect(Object.keys(post)).toContain("responses");
    expect(onOperations()).toBe(1);
  });

  it("read exactly like the plain document, whatever a program does first", () => {
    // Each first touch on a fresh open: the proxy must have defined the heavy fields by then.
    // (Key order aside: index fields come first, as before; checked below.)
    const firsts: Record<string, (op: any) => unknown> = {
      keys: (op) => Object.keys(op).toSorted(),
      entries: (op) => read(Object.fromEntries(Object.entries(op))),
      json: (op) => read(op),
      spread: (op) => read({ ...op }),
      forIn: (op) => {
        const keys = [];
        for (const key in op) keys.push(key);
        return keys.toSorted();
      },
      descriptor: (op) => Object.getOwnPropertyDescriptor(op, "responses")?.enumerable,
      hasOwn: (op) => [Object.hasOwn(op, "requestBody"), Object.hasOwn(op, "nothing")],
      in: (op) => ["requestBody" in op, "summary" in op, "nothing" in op, "toString" in op],
      heavy: (op) => read(op.requestBody),
      inherited: (op) => read(Object.create(op).requestBody),
      values: (op) => Object.values(op).length,
    };
    const orders = new Set<string>();
    for (const [name, first] of Object.entries(firsts)) {
      const { doc, plain } = opened();
      expect(first(doc.paths["/pet"].post), name).toEqual(first(plain.paths["/pet"].post));
      expect(read(doc.paths["/pet"].post), name).toEqual(read(plain.paths["/pet"].post));
      orders.add(Object.keys(doc.paths["/pet"].post).join());
    }
    // One key order whatever came first: the index fields, then the heavy ones.
    expect([...orders]).toEqual([
      "tags,summary,operationId,description,requestBody,responses,security",
    ]);
  });

  it("take assignments, deletions, definitions and freezing made before any read", () => {
    const { doc, plain } = opened();
    const op = doc.paths["/pet"].post;
    expect(doc.paths["/pet"].post).toBe(op);
    op.requestBody = "replaced";
    expect(op.requestBody).toBe("replaced");
    expect(Object.getOwnPropertyDescriptor(op, "requestBody")).toEqual({
      value: "replaced",
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(Object.keys(op).toSorted()).toEqual(Object.keys(plain.paths["/pet"].post).toSorted());

    const put = doc.paths["/pet"].put;
    expect(delete put.responses).toBe(true);
    expect("responses" in put).toBe(false);
    expect(Object.keys(put)).not.toContain("responses");

    const get = doc.paths["/pet/{petId}"].get;
    Object.defineProperty(get, "summary", { value: "defined", enumerable: false });
    expect(get.summary).toBe("defined");
    expect(Object.keys(get)).not.toContain("summary");
    expect(read(get.responses)).toEqual(read(plain.paths["/pet/{petId}"].get.responses));

    const frozen = Object.freeze(doc.paths["/pet/{petId}"].delete);
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(read(frozen)).toEqual(read(plain.paths["/pet/{petId}"].delete));
    expect(() => {
      "use strict";
      frozen.summary = "x";
    }).toThrow(TypeError);
  });

  it("never show the position the packer keeps in each index entry", () => {
    // The index entry's last field says which operation it is until the heavy fields are
    // defined: no read, listing or test of an operation may see it, before or after.
    const INDEX = "\u007f";
    const { doc, plain } = opened();
    const pending = doc.paths["/pet"].post;
    expect(pending[INDEX]).toBeUndefined();
    expect(INDEX in pending).toBe(false);
    expect(JSON.stringify(doc.paths["/pet"].put)).not.toContain("\\u007f");
    expect(Object.keys(doc.paths["/pet/{petId}"].get)).not.toContain(INDEX);
    expect(pending.requestBody).toBeTypeOf("object");
    expect(Object.hasOwn(pending, INDEX)).toBe(false);
    // A field of that name the program sets is its own, as on any object.
    const other = doc.paths["/pet/{petId}"].delete;
    other[INDEX] = 1;
    expect(other[INDEX]).toBe(1);
    expect(Object.keys(other).toSorted()).toEqual(
      [...Object.keys(plain.paths["/pet/{petId}"].delete), INDEX].toSorted(),
    );
    // A spec with an operation field of that name keeps the plain form.
    const spec = petstore();
    (spec.compact.operations[0] as Record<string, unknown>)[INDEX] = "x";
    expect(packSpec(spec.compact)).toBeUndefined();
  });

  it("take no traps from a program's Object.prototype", () => {
    // A handler that inherited from Object.prototype would take these as its traps.
    const { doc, plain } = opened();
    const proto = Object.prototype as Record<string, unknown>;
    proto["ownKeys"] = () => [];
    proto["getPrototypeOf"] = () => null;
    proto["isExtensible"] = () => false;
    // Nor does a field named like the packer's position field pass for one.
    proto["\u007f"] = 0;
    try {
      const op = doc.paths["/pet"].post;
      expect(Object.keys(op).toSorted()).toEqual(Object.keys(plain.paths["/pet"].post).toSorted());
      expect(Object.getPrototypeOf(op)).toBe(Object.prototype);
      expect(Object.isExtensible(op)).toBe(true);
      expect(read(op.requestBody)).toEqual(read(plain.paths["/pet"].post.requestBody));
      expect(read(doc.paths["/pet/{petId}"].get)).toEqual(read(plain.paths["/pet/{petId}"].get));
    } finally {
      delete proto["ownKeys"];
      delete proto["getPrototypeOf"];
      delete proto["isExtensible"];
      delete proto["\u007f"];
    }
  });

  it("reach the opener's missing only for a heavy field, after an index part", () => {
    const whole = packSpec(petstore().compact)!;
    const missing = vi.fn((): never => {
      throw new Error("past the index");
    });
    const doc = openPackedSpec(packedIndex(whole), undefined, missing) as any;
    const op = doc.paths["/pet"].post;
    expect(Object.keys(op)).toContain("requestBody");
    expect("requestBody" in op).toBe(true);
    expect(op.operationId).toBe("addPet");
    expect(missing).not.toHaveBeenCalled();
    expect(() => op.requestBody).toThrow("past the index");
    expect(missing).toHaveBeenCalledTimes(1);
  });
});
