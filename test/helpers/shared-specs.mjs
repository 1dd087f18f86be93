/**
 * Where the shared API specs live (repo/../shared/specs): the one place tests, e2e and the
 * vitest alias `#shared-specs/` name that folder.
 */
import { fileURLToPath } from "node:url";

/** Absolute path of the shared specs folder, with a trailing slash. */
export const SHARED_SPECS_DIR = fileURLToPath(new URL("../../../shared/specs/", import.meta.url));

/** Absolute path of the Cloudflare API spec (4.2 MB, 1,533 operations). */
export const CLOUDFLARE_SPEC_PATH = `${SHARED_SPECS_DIR}cloudflare-api-2024-08-06.json`;
