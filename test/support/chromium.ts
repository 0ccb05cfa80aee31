import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH names another build. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AVAILABLE = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';

/**
 * `it` for a test in a real browser: skipped, with a warning naming `what`, where there is no browser, except in CI
 * (CI=true), where {@link launchChromium} then fails the test.
 */
export function itInChromium(what: string): jest.It {
  if (AVAILABLE || IN_CI) return it;
  console.warn(
    `${what} skipped: no browser at ${CHROMIUM} (install Debian's "chromium" package, or set CHROMIUM_PATH). In CI (CI=true) it fails instead.`,
  );
  return it.skip;
}

/** Headless Chromium on a fresh profile; `close()` closes it and removes the profile. */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!AVAILABLE)
    throw new Error(
      `CI=true but there is no browser at ${CHROMIUM}: install Debian's "chromium" package in the CI image`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'gw-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
