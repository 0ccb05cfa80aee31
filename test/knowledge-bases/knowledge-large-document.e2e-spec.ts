import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { DOCUMENT_MAX_CHARS } from '@app/modules/knowledge-bases/knowledge-bases.types';
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
});
