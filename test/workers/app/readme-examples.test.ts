/**
 * The README's client examples are files under test/readme-examples/ (compiled by the
 * typecheck); this checks the README shows them verbatim, so what users copy compiles.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error -- Vite query import, no type declaration
import readme from "../../../README.md?raw";
// @ts-expect-error -- Vite query import, no type declaration
// oxlint-disable-next-line import/default -- `?raw` yields the file's text, not the module
import v1 from "../../readme-examples/sdk-v1-client.ts?raw";
// @ts-expect-error -- Vite query import, no type declaration
// oxlint-disable-next-line import/default -- `?raw` yields the file's text, not the module
import v2 from "../../readme-examples/sdk-v2-client.ts?raw";
// @ts-expect-error -- Vite query import, no type declaration
// oxlint-disable-next-line import/default -- `?raw` yields the file's text, not the module
import executorExample from "../../readme-examples/executor.ts?raw";
// @ts-expect-error -- Vite query import, no type declaration
// oxlint-disable-next-line import/default -- `?raw` yields the file's text, not the module
import openApiExample from "../../readme-examples/openapi-server.ts?raw";
// @ts-expect-error -- Vite query import, no type declaration
// oxlint-disable-next-line import/default -- `?raw` yields the file's text, not the module
import codeExample from "../../readme-examples/code-server.ts?raw";

/** The example without its header comment. */
function body(source: string): string {
  const lines = source.split("\n");
  while (lines[0]?.startsWith("//")) lines.shift();
  return lines.join("\n").trim();
}

describe("README examples", () => {
  it.each([
    ["sdk-v2-client.ts", v2 as string],
    ["sdk-v1-client.ts", v1 as string],
    ["executor.ts", executorExample as string],
    ["openapi-server.ts", openApiExample as string],
    ["code-server.ts", codeExample as string],
  ])("README.md shows %s verbatim", (_name, source) => {
    expect(readme as string).toContain(body(source));
  });
});
