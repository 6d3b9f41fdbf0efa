/**
 * @module test/helpers/browser
 * A real Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core (pinned to
 * 1.64.1, the release whose protocol matches Debian's Chromium 156). Absent Chromium skips the suite
 * on a laptop and fails it under CI=true or ROA_REQUIRE_SERVICES=1 (test/helpers/services).
 */
import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian installs Chromium (env ROA_CHROMIUM overrides). */
export const CHROMIUM_PATH = process.env.ROA_CHROMIUM ?? '/usr/bin/chromium';

/** True when the Chromium binary is there and executable. */
export function chromiumAvailable(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a headless Chromium. Close it in an `after` hook. `--no-sandbox` because CI runs as root,
 * where Chromium refuses its sandbox.
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
