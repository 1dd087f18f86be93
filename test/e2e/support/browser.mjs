// Headless Chromium (Debian `chromium`) for the scenarios that look at the status page as a
// browser draws it: where it is, what to do when it is missing, and a page on a fresh profile.
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

/** Chromium's path: CHROMIUM_PATH, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Headless, and nothing that reaches out on its own (updates, sync, QUIC probes). */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Stops the scenario at once, naming the fix, when Chromium is not installed.
 * @param {string} scenario - the e2e script's name
 */
export function requireChromium(scenario) {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `e2e ${scenario}: ${CHROMIUM} is missing. Fix: apt-get update && apt-get install -y chromium (.ci/run does this).`,
    );
}

/**
 * Opens Chromium on `profile` (a persistent context on an empty folder: playwright's way of
 * --user-data-dir), gives `use` a page whose waits last up to 60 s, and closes the browser
 * however `use` ends.
 * @template T
 * @param {string} profile - an empty folder for the browser's profile
 * @param {{ width: number, height: number }} viewport
 * @param {(page: import("playwright-core").Page) => Promise<T>} use
 * @returns {Promise<T>}
 */
export async function withPage(profile, viewport, use) {
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport,
    headless: true,
    timeout: 60_000,
    args: ARGS,
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(60_000);
    return await use(page);
  } finally {
    await browser.close();
  }
}
