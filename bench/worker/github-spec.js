// GitHub's REST API spec (`@octokit/openapi`, pinned in devDependencies) as JSON text: shipped
// through bench/wrangler.jsonc's Text rule straight from node_modules (never copied into the
// repository). Typed by github-spec.d.ts, so the typecheck never parses the 13 MB JSON.
import text from "../../node_modules/@octokit/openapi/generated/api.github.com.json";

export default text;
