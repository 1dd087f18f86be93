/**
 * The launchers check the configuration in plain Node (the product's Node build bundles
 * src/app/config/config.ts): reading `EXECUTOR` there must not pull in Worker-only code. This file runs
 * in Node, so importing config.ts fails here if it ever reaches `cloudflare:workers` again (it
 * did once: `npm start` could not build).
 */
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../src/app/config/config";
import { isSettingName } from "../../../src/app/config/setting-names";

describe("EXECUTOR in the launchers' Node check", () => {
  it("is a setting the launchers pass, checked without the Worker runtime", () => {
    expect(isSettingName("EXECUTOR")).toBe(true);
    const shared = readConfig({ EXECUTOR: "shared-worker" }, ["demo-api"]);
    expect(shared.ok && shared.config.executor).toBe("shared-worker");
    const bad = readConfig({ EXECUTOR: "v8" }, ["demo-api"]);
    expect(bad.ok).toBe(false);
  });
});
