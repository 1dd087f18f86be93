// Test fixtures: the real Cloudflare spec (vendored, unpacked into test/.fixtures/ by `npm run
// fixtures`) and the example specs of the @readme/oas-examples package.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CLOUDFLARE_SPEC_PATH } from "../../helpers/specs/fixture-specs.mjs";

let cloudflareText: string | undefined;

/** The Cloudflare spec, parsed fresh on every call (callers may mutate it). */
export function cloudflareSpec(): Record<string, any> {
  cloudflareText ??= readFileSync(CLOUDFLARE_SPEC_PATH, "utf8");
  return JSON.parse(cloudflareText);
}

const require = createRequire(import.meta.url);

/** Absolute path of a file of the @readme/oas-examples package, e.g. `3.0/json/circular.json`. */
export function oasExamplePath(file: string): string {
  return require.resolve(`@readme/oas-examples/${file}`);
}

/** A parsed JSON example of the @readme/oas-examples package. */
export function oasExample(file: string): Record<string, any> {
  return JSON.parse(readFileSync(oasExamplePath(file), "utf8"));
}
