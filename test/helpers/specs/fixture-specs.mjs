/**
 * Where the big API specs the tests read live: test/.fixtures/, inside the repository, filled by
 * `npm run fixtures` (scripts/fetch-fixture-specs.mjs: vendored ones decompressed, the others
 * fetched from the npm registry, each pinned by SHA-256). The one place tests, e2e scripts and
 * the vitest alias `#fixtures/` name that folder.
 */
import { fileURLToPath } from "node:url";

/** Absolute path of test/.fixtures/, with a trailing slash. */
export const FIXTURES_DIR = fileURLToPath(new URL("../../.fixtures/", import.meta.url));

/** Absolute path of the Cloudflare API spec (4.2 MB, 1,533 operations; vendored, BSD-3-Clause). */
export const CLOUDFLARE_SPEC_PATH = `${FIXTURES_DIR}cloudflare-api-2024-08-06.json`;
