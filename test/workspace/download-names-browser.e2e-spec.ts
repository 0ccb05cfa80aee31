import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession } from 'puppeteer-core';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { itInChromium, launchChromium } from '@test/support/chromium';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant } from './workspace-test-kit';

/** The name Chromium saved a download under, once it is complete. */
function nextDownload(cdp: CDPSession): Promise<string> {
  return new Promise((resolve, reject) => {
    let name = '';
    const begun = (e: { suggestedFilename: string }) => (name = e.suggestedFilename);
    const progress = (e: { state: string }) => {
      if (e.state === 'inProgress') return;
      cdp.off('Browser.downloadWillBegin', begun);
      cdp.off('Browser.downloadProgress', progress);
      if (e.state === 'completed') resolve(name);
      else reject(new Error(`download ${e.state}`));
    };
    cdp.on('Browser.downloadWillBegin', begun);
    cdp.on('Browser.downloadProgress', progress);
  });
}

/**
 * A workspace file and an artifact downloaded in a real browser: saved under the file's own name, whatever characters
 * the command or the model gave it, and never shown (HTML holding a script stays a file; it never runs on the
 * gateway's origin).
 */
describe('downloads in a real browser', () => {
  const suite = gatewayForSuite('sqlite', { WORKSPACE_ROOT: workspaceRootForSuite() });
  let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
  const saved = mkdtempSync(join(tmpdir(), 'gw-downloads-'));

  afterAll(async () => {
    await chromium?.close();
    rmSync(saved, { recursive: true, force: true });
  });

  itInChromium('Download browser test')(
    'saves a file named with a quote under its name (Chromium saved it as "content"), and runs no script in it',
    async () => {
      const t = await workspaceTenant(suite.gw, 't-browser', FILE_TOOLS);
      const session = await t.newSession(['FILE_ROOM']);
      const html = '<script>alert(document.domain)</script>';
      await suite.gw.app.listen(0, '127.0.0.1');
      const url = (await suite.gw.app.getUrl()).replace('[::1]', '127.0.0.1');
      chromium = await launchChromium();
      const cdp = await chromium.browser.target().createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: saved, eventsEnabled: true });
      const page = await chromium.browser.newPage();
      await page.setExtraHTTPHeaders(t.runtime);
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });

      for (const name of ["it's (v2).html", 'l’été.html']) {
        await t.call(session, 'WRITE_FILE', { path: `out/${name}`, content: html });
        const { artifactId } = JSON.parse((await t.call(session, 'PUBLISH_FILE', { path: `out/${name}` })).content);
        for (const [how, link] of [
          ['artifact', `${url}/api/v1/artifacts/${artifactId}/content`],
          [
            'workspace file',
            `${url}/api/v1/sessions/${session}/files/content?path=${encodeURIComponent(`out/${name}`)}`,
          ],
        ]) {
          const downloaded = nextDownload(cdp);
          // A download is no page: Chromium aborts the navigation and saves the file.
          await expect(page.goto(link)).rejects.toThrow('net::ERR_ABORTED');
          const as = await downloaded;
          expect({ how, name: as }).toEqual({ how, name });
          expect(readFileSync(join(saved, as), 'utf8')).toBe(html);
          rmSync(join(saved, as));
        }
      }
      expect(dialogs).toEqual([]);
    },
    120_000,
  );
});
