// What `code-mode-mcp --stdio` loads in the launcher's main thread, as one bundle of its own
// (dist/cli/stdio-bridge.js, scripts/build-product.mjs): the bridge, and which settings a kept
// `initialize` answer depends on (cli/kept/early-answers.mjs), read from the product's own
// tables without loading the product module (~0.5 s of a desktop launch's CPU, issue #43). The
// bridge's own file imports no TypeScript, so it also runs from source.
import { isSettingName } from "../../src/app/config/setting-names";
import { LAUNCHER_SETTING_TABLE } from "../../src/app/config/launcher-settings";

export { runStdioBridge } from "./stdio-bridge.mjs";

/**
 * Whether an environment variable is a setting of the product or of its launcher: a launch
 * with another value of one answers `initialize` only once its host is up (a launcher setting
 * the check refuses never answered, so it has no kept answer to give early).
 * @param {string} name
 * @returns {boolean}
 */
export const isLaunchSetting = (name) =>
  isSettingName(name) || Object.hasOwn(LAUNCHER_SETTING_TABLE, name);
