/**
 * The runtime host's malloc settings (cli/local-server/malloc-env.mjs): added to its environment
 * where the user set none, never replacing a value the user gave.
 */
import { describe, expect, it } from "vitest";
import { MALLOC_SETTINGS, withMallocSettings } from "../../../cli/local-server/malloc-env.mjs";

describe("the runtime host's malloc settings", () => {
  it("are added to an environment that has none, the rest kept", () => {
    expect(withMallocSettings({ PATH: "/bin" })).toEqual({ PATH: "/bin", ...MALLOC_SETTINGS });
    expect(MALLOC_SETTINGS.MALLOC_ARENA_MAX).toBe("2");
  });

  it("keep each value the user set, even an empty one", () => {
    const env: Record<string, string | undefined> = withMallocSettings({
      MALLOC_ARENA_MAX: "8",
      MALLOC_TRIM_THRESHOLD_: "",
    });
    expect(env.MALLOC_ARENA_MAX).toBe("8");
    expect(env.MALLOC_TRIM_THRESHOLD_).toBe("");
    expect(env.MALLOC_MMAP_THRESHOLD_).toBe(MALLOC_SETTINGS.MALLOC_MMAP_THRESHOLD_);
  });
});
