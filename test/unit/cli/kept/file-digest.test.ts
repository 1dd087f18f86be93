/**
 * Digests handed from one process of a launch to another (cli/kept/file-digest.mjs): the launcher
 * hashes the product module and the spec file under `--stdio`, and the launch check's process
 * (cli/plan-launch-child.mjs) takes its digests instead of hashing the same bytes again. A
 * digest holds only while its file keeps the size and time it was hashed at.
 */
import { createHash } from "node:crypto";
import { readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { digestsOf, fileSha256, rememberDigests } from "../../../../cli/kept/file-digest.mjs";
import { planInProcess } from "../../../../cli/plan-in-process.mjs";
import { PRODUCT_MODULE } from "../../../../cli/runtime-paths.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders.js";
import { specLaunchEnv } from "../../../helpers/cli/spec-launch-env.js";

const scratch = scratchFolders("code-mode-file-digest-");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** A digest no file here has: where it shows, the handed one was taken. */
const HANDED = "a".repeat(64);

describe("digestsOf and rememberDigests", () => {
  it("gives the digests of the files it can read, with their size and time", () => {
    const file = join(scratch.folder(), "spec.json");
    writeFileSync(file, "{}");
    const [known, ...rest] = digestsOf([file, undefined, join(scratch.root, "missing.json")]);
    expect(rest).toEqual([]);
    expect(known).toMatchObject({ file, size: 2, digest: sha256("{}") });
  });

  it("takes a handed digest while its file keeps its size and time, and hashes again after", () => {
    const file = join(scratch.folder(), "spec.json");
    writeFileSync(file, "{}");
    const [known] = digestsOf([file]);
    rememberDigests([{ ...known, digest: HANDED }, { file: 1 }, "junk"]);
    expect(fileSha256(file)).toBe(HANDED);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(fileSha256(file)).toBe(sha256("{}"));
  });

  it("ignores what is not a list of digests", () => {
    const file = join(scratch.folder(), "spec.json");
    writeFileSync(file, "[]");
    const [known] = digestsOf([file]);
    rememberDigests({ ...known, digest: HANDED });
    rememberDigests([{ ...known, digest: "not hex" }]);
    expect(fileSha256(file)).toBe(sha256("[]"));
  });
});

describe("the launch check's process", () => {
  it("names the spec it compiled by the digests the launcher handed it", async () => {
    const root = scratch.folder();
    const spec = join(root, "items.json");
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "Items", version: "1" },
        servers: [{ url: "https://items.example.com" }],
        paths: {
          "/items": {
            get: { operationId: "listItems", responses: { 200: { description: "ok" } } },
          },
        },
      }),
    );
    const [product, specFile] = digestsOf([PRODUCT_MODULE, spec]);
    if (!product || !specFile) throw new Error("the product module or the spec is unreadable");
    const env = await specLaunchEnv(root, spec);
    const planned = await planInProcess({
      label: "code-mode-mcp",
      env,
      log: () => {},
      progress: () => {},
      digests: [product, { ...specFile, digest: HANDED }],
    });
    expect(planned.ok).toBe(true);
    // The compiled spec's entry is named by the product's and the spec's digests
    // (cli/kept/spec-cache.mjs): by the handed one, not by one the check computed itself.
    const entries = readdirSync(join(root, "cache", "code-mode-mcp", "specs"));
    expect(entries).toContain(`${sha256(`${product.digest}\n${HANDED}`)}.json`);
  }, 90_000);
});
