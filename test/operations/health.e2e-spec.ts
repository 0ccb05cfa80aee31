import { renameSync, rmSync } from 'node:fs';
import { createTestDatabaseUrl, TestDatabase } from '@test/support/test-database';
import { startTestGateway, TestGateway } from '@test/support/gateway-test-app';

/**
 * An SQLite gateway whose database file is gone (a volume unmounted, a file deleted or moved) keeps its open handle
 * and answers `SELECT 1`: everything it writes from then on is lost at its next start, which creates an empty
 * database. /health says so instead of `up`.
 */
describe('GET /health of an SQLite gateway whose database file is gone', () => {
  let db: TestDatabase;
  let gw: TestGateway;
  let file: string;

  beforeEach(async () => {
    db = await createTestDatabaseUrl('sqlite');
    file = db.url.slice('sqlite:'.length);
    gw = await startTestGateway(db.url);
    await gw.http.get('/health').expect(200, { status: 'ok', db: 'up' });
  });

  afterEach(async () => {
    await gw?.close();
    await db?.drop();
    rmSync(`${file}.moved`, { force: true });
  });

  it('answers 503 db down once the file was removed', async () => {
    rmSync(file);
    await gw.http.get('/health').expect(503, { status: 'degraded', db: 'down' });
  });

  it('answers 503 db down once the file was moved away', async () => {
    renameSync(file, `${file}.moved`);
    await gw.http.get('/health').expect(503, { status: 'degraded', db: 'down' });
  });
});
