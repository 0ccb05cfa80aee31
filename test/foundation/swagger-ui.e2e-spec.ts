import { gatewayForSuite } from '@test/support/gateway-test-app';
import { itInChromium, launchChromium } from '@test/support/chromium';

const ACT_PATH = '/api/v1/sessions/{id}/act';

describe('Swagger UI at /docs in a real browser', () => {
  const suite = gatewayForSuite('sqlite');
  let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;

  afterAll(async () => {
    await chromium?.close();
  });

  itInChromium('Swagger UI browser test')(
    'renders the API with the act operation',
    async () => {
      await suite.gw.app.listen(0, '127.0.0.1');
      const url = (await suite.gw.app.getUrl()).replace('[::1]', '127.0.0.1');
      chromium = await launchChromium();
      const page = await chromium.browser.newPage();
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
