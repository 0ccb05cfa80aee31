import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { DOCUMENT_MAX_CHARS, DOCUMENT_MAX_CHUNKS } from '@app/modules/knowledge-bases/knowledge-bases.types';
import { createKnowledgeBase } from './support/knowledge-fixtures';

/**
 * A document of the largest size takes seconds to index (Chinese at 2,000,000 characters: about 5 s of tokenizing
 * on 2 cores). The gateway serves everyone else meanwhile: the tokenizing gives the event loop back every 20 ms.
 */
describe('indexing a document of DOCUMENT_MAX_CHARS', () => {
  const suite = gatewayForSuite('sqlite');

  it('keeps the event loop free for other requests while it tokenizes', async () => {
    const kb = await createKnowledgeBase(suite.gw, { name: 'big', tenantId: 'big-docs' });
    const sentence = '知识库把长文档切成段落并为每个段落建立索引。';
    const content = sentence.repeat(Math.floor(DOCUMENT_MAX_CHARS / sentence.length));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const res = await suite.gw.http
      .post(`/api/v1/admin/knowledge-bases/${kb}/documents`)
      .set(suite.gw.admin)
      .send({ title: 'Large', content, mimeType: 'text/markdown' });
    const took = Date.now() - started;
    delay.disable();
    expect(res.status).toBe(201);
    expect(res.body.chunkCount).toBeGreaterThan(1000);
    // Held throughout, the longest stall was about all of it (5.0 of 5.2 s); now about 1 s (chunking, the request's
    // JSON and SQLite's synchronous inserts of the chunks, with the test's own client in the same process).
    expect(delay.max / 1e6).toBeLessThan(took / 2);
  }, 120_000);

  it('refuses a document that would fan out into more than DOCUMENT_MAX_CHUNKS passages, storing nothing', async () => {
    const kb = await createKnowledgeBase(suite.gw, { name: 'fan-out', tenantId: 'big-docs' });
    // 6 characters a section: every heading starts a passage that repeats the title's words in its index entry.
    const content = '# h\nb\n'.repeat(DOCUMENT_MAX_CHUNKS + 1);
    const res = await suite.gw.http
      .post(`/api/v1/admin/knowledge-bases/${kb}/documents`)
      .set(suite.gw.admin)
      .send({ title: 'Fan out '.repeat(60).trim(), content, mimeType: 'text/markdown' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.body.error)).toContain(`more than ${DOCUMENT_MAX_CHUNKS} passages`);
    const docs = await suite.gw.http
      .get(`/api/v1/admin/knowledge-bases/${kb}/documents`)
      .set(suite.gw.admin)
      .expect(200);
    expect(docs.body.items).toEqual([]);
  }, 120_000);
});
