import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { gatewayForSuite } from '@test/support/gateway-test-app';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH names another build. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AVAILABLE = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true';
const ACT_PATH = '/api/v1/sessions/{id}/act';

if (!AVAILABLE && !IN_CI) {
  console.warn(
    `Swagger UI browser test skipped: no browser at ${CHROMIUM} (install Debian's "chromium" package, or set CHROMIUM_PATH). In CI (CI=true) it fails instead.`,
  );
}

describe('Swagger UI at /docs in a real browser', () => {
  const suite = gatewayForSuite('sqlite');
  let browser: Browser | undefined;
  let profile: string | undefined;

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  (AVAILABLE || IN_CI ? it : it.skip)(
    'renders the API with the act operation',
    async () => {
      if (!AVAILABLE)
        throw new Error(
          `CI=true but there is no browser at ${CHROMIUM}: install Debian's "chromium" package in the CI image`,
        );
      await suite.gw.app.listen(0, '127.0.0.1');
      const url = (await suite.gw.app.getUrl()).replace('[::1]', '127.0.0.1');
      profile = mkdtempSync(join(tmpdir(), 'gw-chromium-'));
      browser = await puppeteer.launch({
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
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(String(err)));
      const answer = await page.goto(`${url}/docs`, { waitUntil: 'load', timeout: 60_000 });
      expect(answer?.status()).toBe(200);

      // Swagger UI builds the page in the browser from its bundle and the inlined document: the operation only
      // exists once the scripts ran.
      const path = await page.waitForSelector(`.opblock-summary-path[data-path="${ACT_PATH}"]`, { timeout: 60_000 });
      const operation = await path!.evaluate((el) => {
        const block = el.closest('.opblock');
        return {
          classes: block?.className ?? '',
          method: block?.querySelector('.opblock-summary-method')?.textContent ?? '',
        };
      });
      expect(operation.method).toBe('POST');
      expect(operation.classes).toContain('opblock-post');
      expect(await page.$eval('.info .title', (el) => el.textContent ?? '')).toContain('Agent tool gateway');
      expect(pageErrors).toEqual([]);
    },
    120_000,
  );
});
