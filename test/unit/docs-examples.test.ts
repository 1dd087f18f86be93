// Every TypeScript sample in README.md and docs/*.md is a file under docs/examples/, compiled by the
// typecheck (tsconfig includes docs/examples) against the package's own entry names. This test
// holds the two together: each ```ts block must be the body of an example file, shown verbatim, and
// each example file must be shown somewhere, so what users copy is what compiles.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

/** An example file without its header comment (the lines before the code that say where it is shown). */
function body(source: string): string {
  const lines = source.split("\n");
  while (lines[0]?.startsWith("//")) lines.shift();
  return lines.join("\n").trim();
}

const pages = [
  "README.md",
  ...readdirSync(new URL("docs/", root))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
// env.d.ts declares the examples' bindings; it is not a sample.
const examples = readdirSync(new URL("docs/examples/", root))
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => ({ file: f, code: body(read(`docs/examples/${f}`)) }));
const blocks = pages.flatMap((page) =>
  [...read(page).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m, i) => ({
    page,
    index: i + 1,
    code: m[1]!.trim(),
  })),
);

describe("documentation samples", () => {
  it("finds samples to check", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(examples.length);
  });

  it.each(blocks.map((b) => [`${b.page} sample ${b.index}`, b.code] as const))(
    "%s is an example file under docs/examples/, verbatim",
    (_name, code) => {
      const match = examples.find((e) => e.code === code);
      expect(match?.file, `no file in docs/examples/ has this body:\n${code}`).toBeDefined();
    },
  );

  it.each(examples.map((e) => [e.file, e.code] as const))("%s is shown in the docs", (_f, code) => {
    expect(blocks.some((b) => b.code === code)).toBe(true);
  });
});
