// Test fixtures: the real Cloudflare spec from ../shared (never copied into the repository) and
// the example specs of the @readme/oas-examples package.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Absolute path of the Cloudflare API spec, resolved from this file (repo/../shared/specs). */
export const CLOUDFLARE_SPEC_PATH = fileURLToPath(
  new URL("../../../../shared/specs/cloudflare-api-2024-08-06.json", import.meta.url),
);

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
