// The product code the launchers run in Node, as one module: the settings list and their check
// (the Worker's own, src/app/config/config.ts), the spec build step (swagger-parser validation and the
// compiler the Worker uses), the tools/list measure (with the Worker's own tool-text options) and
// the stdio bridge. Not imported directly:
// scripts/build-product.mjs bundles it into dist/cli/product.js, so the `code-mode-mcp` command needs
// neither the sources nor a TypeScript loader, and `npm start` runs the very same file.
export {
  SETTING_NAMES,
  isSettingName,
  LAUNCH_SPECS_VAR,
  LAUNCH_TOKENS_VAR,
  LAUNCH_SKILLS_VAR,
  BUNDLED_SKILLS_KEY,
} from "../../src/app/config/setting-names";
export { readSkillsDir } from "../../src/app/skills/operator-skills";
export { apiToolText } from "../../src/app/api-tool-text";
export { readConfig, formatProblems } from "../../src/app/config/config";
export { readLauncherSettings } from "../../src/app/config/launcher-settings";
export { DEFAULT_LIMITS } from "../../src/executor/limits";
export { specDefinesAuth } from "../../src/app/config/spec-auth";
export { COMPACT_SPECS } from "../../src/app/generated/specs";
export { compileSpec } from "../../src/openapi/compile-spec";
export { findSpecProblems, specVersionOf } from "../../src/openapi/check-spec";
export { loadSpecFile } from "./load-spec-file.mjs";
export { oneLineText, terminalText } from "./terminal-text.mjs";
export { measureToolsList } from "./tools-list-tokens.mjs";
export { runStdioBridge } from "./stdio-bridge.mjs";
