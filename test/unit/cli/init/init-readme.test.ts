/**
 * The README.md `code-mode-mcp init` writes (cli/init-readme.mjs), byte for byte, for each kind
 * of project: clients that send a key or sign in with OAuth, the sample API or a `--spec` (with
 * and without `--upstream`). What each must say is asserted in init-files.test.ts; the goldens
 * show every change to the text in review.
 */
import { describe, it } from "vitest";
import { projectReadme } from "../../../../cli/init-readme.mjs";
import { golden } from "../../../helpers/golden";

const VARIANTS = {
  "key-sample": { sample: true },
  "key-spec": { sample: false },
  "key-spec-upstream": { sample: false, upstream: "https://mcp.example.com/mcp" },
  "oauth-sample": { sample: true, oauth: true },
  "oauth-spec": { sample: false, oauth: true },
};

describe("init's README", () => {
  it.each(Object.entries(VARIANTS))("%s", async (variant, options) => {
    const text = projectReadme({ name: "my-api", upstream: undefined, ...options });
    await golden(`init-readme/${variant}.md.txt`, text);
  });
});
