// GitHub's REST API spec (`@octokit/openapi` 23.0.2's api.github.com.json, fetched by `npm run
// fixtures` into test/.fixtures/, pinned by SHA-256) as JSON text: shipped through
// bench/wrangler.jsonc's Text rule (never copied into the repository). Typed by github-spec.d.ts,
// so the typecheck never parses the 13 MB JSON.
import text from "../../test/.fixtures/api.github.com.json";

export default text;
