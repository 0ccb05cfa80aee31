import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestGateway } from '@test/support/gateway-test-app';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { waitFor } from '@test/support/wait-for';
import { streamedUpload, workspaceRootForSuite, workspaceTenant } from '@test/workspace/workspace-test-kit';

/** SHUTDOWN_GRACE_MS bounds `app.close()` (tests, an application embedding the gateway) as it bounds a signal. */
describe('graceful shutdown by app.close()', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
  });
  afterAll(() => db?.drop());

  it('stops waiting for a request still running at SHUTDOWN_GRACE_MS: its connection is closed and close() resolves', async () => {
    const root = workspaceRootForSuite();
    // No idle timeout: nothing but the grace ends the upload below.
    const gw = await startTestGateway(db.url, {
      WORKSPACE_ROOT: root,
      SHUTDOWN_GRACE_MS: '100',
      CLIENT_IDLE_TIMEOUT_MS: '0',
    });
    await gw.app.listen(0, '127.0.0.1');
    const port = (gw.app.getHttpServer().address() as AddressInfo).port;
    const t = await workspaceTenant(gw, 't-app-close', ['LIST_FILES']);
    const sessionId = await t.newSession(['FILE_ROOM']);
    // An upload whose sender never ends its body: in flight for as long as the connection stays open.
    const upload = streamedUpload(port, t.runtime, sessionId, 'never-ends.txt');
    upload.body.write('the first part, then nothing');
    await waitFor(() => readdirSync(join(root, '.staging')).length === 1, { description: 'the upload to be staged' });

    await gw.close();
    expect(typeof (await upload.answer)).not.toBe('number'); // no answer: its connection was closed
    upload.body.destroy();
  });
});
