/**
 * configKeyOf (src/app/config/config-key.ts): the configuration memo's key is built once per
 * bindings object (the runtime's `env` is one object per isolate), and two objects with other
 * settings get other keys.
 */
import { describe, expect, it } from "vitest";
import { configKeyOf } from "../../../src/app/config/config-key";
import { LAUNCH_SPECS_VAR } from "../../../src/app/config/setting-names";

describe("configKeyOf", () => {
  it("reads an env object's settings once, however many requests it serves", () => {
    let reads = 0;
    const env = {};
    Object.defineProperty(env, "SPEC", {
      enumerable: true,
      get: () => {
        reads++;
        return "demo";
      },
    });
    const first = configKeyOf(env);
    expect(configKeyOf(env)).toBe(first);
    expect(configKeyOf(env)).toBe(first);
    expect(reads).toBe(1);
  });

  it("gives the key of the string settings, launch vars and bindings left out", () => {
    const env = { SPEC: "demo", RUNS: { binding: true }, [LAUNCH_SPECS_VAR]: "{}", LIMIT: "5" };
    expect(configKeyOf(env)).toBe(
      JSON.stringify([
        ["SPEC", "demo"],
        ["LIMIT", "5"],
      ]),
    );
    // A launch var does not change the key: it changes only with a new runtime.
    expect(configKeyOf({ SPEC: "demo", LIMIT: "5", [LAUNCH_SPECS_VAR]: '{"x":{}}' })).toBe(
      configKeyOf(env),
    );
  });

  it("gives another key to another env object with other settings", () => {
    expect(configKeyOf({ SPEC: "demo" })).not.toBe(configKeyOf({ SPEC: "petstore" }));
    expect(configKeyOf({ SPEC: "demo" })).toBe(configKeyOf({ SPEC: "demo" }));
  });
});
