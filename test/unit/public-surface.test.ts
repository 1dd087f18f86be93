// The public library surface, pinned: adding, renaming or dropping an export of src/index.ts
// must be a deliberate change to this list (and to the README).
import { expect, it } from "vitest";

it("src/index.ts exports exactly the documented names", async () => {
  // Imported lazily: the module graph touches `cloudflare:workers`, which only exists in workerd,
  // so the check reads the export names from the source instead of importing it in Node.
  const { readFileSync } = await import("node:fs");
  const source = readFileSync(new URL("../../src/index.ts", import.meta.url), "utf8");
  const names = [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)]
    .flatMap((m) => m[1]!.split(","))
    .map((n) =>
      n
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop()!,
    )
    .filter(Boolean)
    .toSorted();
  expect(names).toMatchSnapshot();
});
