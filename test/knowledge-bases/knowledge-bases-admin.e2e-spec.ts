import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { DataSource } from 'typeorm';
import { createAgent, createKnowledgeBase, searchBase } from './support/knowledge-fixtures';
import { BASE_DELETE_BATCH, KnowledgeBaseDeletions } from '@app/modules/knowledge-bases/knowledge-base.deletions';
import { SchedulerRegistry } from '@nestjs/schedule';
import {
  KNOWLEDGE_BASE_DELETION_JOB,
  KnowledgeBaseDeletionJob,
} from '@app/modules/knowledge-bases/knowledge-base-deletion.job';
import { KnowledgeChunkIndex } from '@app/modules/knowledge-bases/knowledge-chunk.index';

const KB = '/api/v1/admin/knowledge-bases';

describeEachDialect('knowledge bases: admin API and tenancy', (dialect) => {
  const suite = gatewayForSuite(dialect);
  /** Adds a one-passage document titled Doc to base `kb` (expects 201). */
  const addRefundDoc = (kb: string) =>
    suite.gw.http
      .post(`${KB}/${kb}/documents`)
      .set(suite.gw.admin)
      .send({ title: 'Doc', content: 'refund window of thirty days', mimeType: 'text/plain' })
      .expect(201);

  it('creates, lists, reads and deletes a knowledge base; names are unique per tenant ignoring case', async () => {
    const { gw } = suite;
    const created = await gw.http.post(KB).set(gw.admin).send({ name: 'Handbook', tenantId: 'crud', kind: 'INTERNAL' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Handbook',
      tenantId: 'crud',
      kind: 'INTERNAL',
      url: null,
      documentCount: 0,
    });
    const clash = await gw.http.post(KB).set(gw.admin).send({ name: 'handbook', tenantId: 'crud', kind: 'INTERNAL' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('KNOWLEDGE_BASE_NAME_TAKEN');
    await gw.http
      .post(KB)
      .set(gw.admin)
      .send({ name: 'handbook', tenantId: 'other-crud', kind: 'INTERNAL' })
      .expect(201);

    const list = await gw.http.get(KB).set(gw.admin).expect(200);
    expect(list.body.items.map((k: { name: string }) => k.name)).toEqual(
      expect.arrayContaining(['Handbook', 'handbook']),
    );
    await gw.http.get(`${KB}/${created.body.id}`).set(gw.admin).expect(200);
    await gw.http.delete(`${KB}/${created.body.id}`).set(gw.admin).expect(200);
    await gw.http.get(`${KB}/${created.body.id}`).set(gw.admin).expect(404);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const { gw } = suite;
    const noUrl = await gw.http.post(KB).set(gw.admin).send({ name: 'svc', tenantId: 'v', kind: 'HTTP' });
    expect(noUrl.status).toBe(400);
    expect(JSON.stringify(noUrl.body.error.details)).toContain('url');
    const httpBase = (url: string) =>
      gw.http.post(KB).set(gw.admin).send({ name: 'svc', tenantId: 'v', kind: 'HTTP', url });
    const creds = await httpBase('https://user:pw@example.com/search');
    expect(creds.status).toBe(400);
    expect(creds.body.error.message).toContain('must not carry a user name or password');
    expect(creds.body.error.message).not.toContain('pw@');
    const keyInQuery = await httpBase('https://example.com/search?api_key=kb-secret-123');
    expect(keyInQuery.status).toBe(400);
    expect(keyInQuery.body.error.message).toContain('must not carry a credential in its query (parameter "api_key")');
    expect(JSON.stringify(keyInQuery.body)).not.toContain('kb-secret-123');
    const ftp = await httpBase('ftp://x/y');
    expect(ftp.status).toBe(400);
    expect(ftp.body.error.details.fields).toEqual([
      {
        field: 'url',
        problems: ['must be an http: or https: URL, not ftp:; e.g. https://retrieval.example.com/search'],
      },
    ]);
    const kind = await gw.http.post(KB).set(gw.admin).send({ name: 'svc', tenantId: 'v', kind: 'VECTOR' });
    expect(kind.status).toBe(400);
    const kb = await createKnowledgeBase(gw, { name: 'docs', tenantId: 'v' });
    const mime = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 't', content: 'x', mimeType: 'application/pdf' });
    expect(mime.status).toBe(400);
    const blank = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 't', content: '\n\n  \n', mimeType: 'text/plain' })
      .expect(400);
    expect(blank.body.error.details.fields).toEqual([
      { field: 'content', problems: ["has no text to index (only blank lines); send the document's text"] },
    ]);
    const metadata = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 't', content: 'x', mimeType: 'text/plain', metadata: { note: 'n'.repeat(16_001) } })
      .expect(400);
    expect(metadata.body.error.details.fields).toEqual([
      {
        field: 'metadata',
        problems: [
          "must be at most 16000 characters as JSON; keep the document's text in content, and fewer or shorter entries in metadata",
        ],
      },
    ]);
    const topK = await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'x', topK: 500 });
    expect(topK.status).toBe(400);
  });

  it('refuses an HTTP base whose url is longer than 2048 characters once percent-encoded (400 naming url)', async () => {
    const { gw } = suite;
    const url = `https://retrieval.example.com/${'检索'.repeat(1000)}`;
    const res = await gw.http.post(KB).set(gw.admin).send({ name: 'long-url', tenantId: 'v', kind: 'HTTP', url });
    expect([res.status, res.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(res.body.error.details)).toContain('url');
    const fits = `https://retrieval.example.com/${'检'.repeat(200)}`;
    const created = await gw.http.post(KB).set(gw.admin).send({ name: 'fits', tenantId: 'v', kind: 'HTTP', url: fits });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(new URL(fits).toString());
  });

  it('chunks a Markdown document along its headings and shows the passages', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'chunks', tenantId: 'acme' });
    const long = Array.from({ length: 40 }, (_, i) => `Step ${i} of the long procedure explains one more detail.`).join(
      ' ',
    );
    const content = `# Guide\nIntro.\n\n## Install\n${long}\n\n## Use\nRun it.`;
    const added = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 'Guide', content, mimeType: 'text/markdown', metadata: { owner: 'ops' } })
      .expect(201);
    expect(added.body).toMatchObject({ title: 'Guide', mimeType: 'text/markdown', metadata: { owner: 'ops' } });
    expect(added.body.chunkCount).toBeGreaterThanOrEqual(4);

    const doc = await gw.http.get(`${KB}/${kb}/documents/${added.body.id}`).set(gw.admin).expect(200);
    expect(doc.body.content).toBe(content);
    const chunks = doc.body.chunks as Array<{ seq: number; heading: string; content: string }>;
    expect(chunks.map((c) => c.heading)).toEqual([
      'Guide',
      ...Array(chunks.length - 2).fill('Guide > Install'),
      'Guide > Use',
    ]);
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(1000);
    const install = chunks.filter((c) => c.heading === 'Guide > Install');
    expect(install[1].content).toContain(install[0].content.slice(-40));

    const base = await gw.http.get(`${KB}/${kb}`).set(gw.admin).expect(200);
    expect(base.body).toMatchObject({ documentCount: 1, chunkCount: chunks.length });
    const list = await gw.http.get(`${KB}/${kb}/documents`).set(gw.admin).expect(200);
    expect(list.body).toMatchObject({ total: 1, items: [{ id: added.body.id, chunkCount: chunks.length }] });
    expect(list.body.items[0].content).toBeUndefined();
  });

  it('takes a deleted document out of the search and the statistics', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'deletes', tenantId: 'acme' });
    const add = (title: string, content: string) =>
      gw.http.post(`${KB}/${kb}/documents`).set(gw.admin).send({ title, content, mimeType: 'text/plain' }).expect(201);
    const keep = await add('Keep', 'The lighthouse keeper logs the weather.');
    const drop = await add('Drop', 'The lighthouse lamp uses a xenon bulb.');
    expect((await searchBase(gw, kb, 'lighthouse', 5)).map((r) => r.title).sort()).toEqual(['Drop', 'Keep']);

    await gw.http.delete(`${KB}/${kb}/documents/${drop.body.id}`).set(gw.admin).expect(200);
    await gw.http.get(`${KB}/${kb}/documents/${drop.body.id}`).set(gw.admin).expect(404);
    expect(await searchBase(gw, kb, 'xenon bulb', 5)).toEqual([]);
    const after = await searchBase(gw, kb, 'lighthouse', 5);
    expect(after.map((r) => r.documentId)).toEqual([keep.body.id]);
    expect((await gw.http.get(`${KB}/${kb}`).set(gw.admin)).body).toMatchObject({ documentCount: 1, chunkCount: 1 });
  });

  it("hides another tenant's knowledge bases and documents (404) and keeps runtime keys out (403)", async () => {
    const { gw } = suite;
    const alpha = await createKey(gw, 'alpha', 'admin');
    const beta = await createKey(gw, 'beta', 'admin');
    const runtime = await createKey(gw, 'alpha', 'runtime');
    const kb = await createKnowledgeBase(gw, { name: 'secret-plans', tenantId: 'alpha' }, alpha);
    const doc = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(alpha)
      .send({ title: 'Plan', content: 'Launch on Tuesday.', mimeType: 'text/plain' })
      .expect(201);

    await gw.http.post(KB).set(beta).send({ name: 'x', tenantId: 'alpha', kind: 'INTERNAL' }).expect(403);
    for (const [method, path] of [
      ['get', `${KB}/${kb}`],
      ['delete', `${KB}/${kb}`],
      ['get', `${KB}/${kb}/documents`],
      ['get', `${KB}/${kb}/documents/${doc.body.id}`],
      ['delete', `${KB}/${kb}/documents/${doc.body.id}`],
    ] as const) {
      await gw.http[method](path).set(beta).expect(404);
    }
    await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(beta)
      .send({ title: 'x', content: 'y', mimeType: 'text/plain' })
      .expect(404);
    await gw.http.post(`${KB}/${kb}/search`).set(beta).send({ query: 'launch' }).expect(404);
    const betaList = await gw.http.get(KB).set(beta).expect(200);
    expect(betaList.body.items.map((k: { id: string }) => k.id)).not.toContain(kb);
    await gw.http.get(KB).set(runtime).expect(403);
    await gw.http.post(`${KB}/${kb}/search`).set(runtime).send({ query: 'launch' }).expect(403);

    const [hit] = await searchBase(gw, kb, 'launch', 1);
    expect(hit).toMatchObject({ documentId: doc.body.id, title: 'Plan' });
  });

  it("binds only the agent's own tenant's knowledge bases, shows them on the agent and unbinds a deleted one", async () => {
    const { gw } = suite;
    const agent = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'kb-agent', tenantId: 'gamma' }).expect(201)
    ).body;
    expect(agent.knowledgeBaseIds).toEqual([]);
    const own = await createKnowledgeBase(gw, { name: 'own', tenantId: 'gamma' });
    const foreign = await createKnowledgeBase(gw, { name: 'foreign', tenantId: 'delta' });

    const refused = await gw.http
      .put(`/api/v1/admin/agents/${agent.id}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [own, foreign] });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toContain(foreign);
    const bound = await gw.http
      .put(`/api/v1/admin/agents/${agent.id}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [own, own] })
      .expect(200);
    expect(bound.body.knowledgeBaseIds).toEqual([own]);
    expect((await gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(gw.admin)).body.knowledgeBaseIds).toEqual([own]);

    const deltaAdmin = await createKey(gw, 'delta', 'admin');
    await gw.http
      .put(`/api/v1/admin/agents/${agent.id}/knowledge-bases`)
      .set(deltaAdmin)
      .send({ knowledgeBaseIds: [foreign] })
      .expect(404);

    await gw.http.delete(`${KB}/${own}`).set(gw.admin).expect(200);
    expect((await gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(gw.admin)).body.knowledgeBaseIds).toEqual([]);
  });

  it('takes an id in another letter case for no base or document (404), so a deletion by it leaves no agent bound to a base that is gone', async () => {
    const { gw } = suite;
    const agent = (
      await gw.http
        .post('/api/v1/admin/agents')
        .set(gw.admin)
        .send({ name: 'kb-case', tenantId: 'epsilon' })
        .expect(201)
    ).body;
    const kb = await createKnowledgeBase(gw, { name: 'case', tenantId: 'epsilon' });
    const doc = await addRefundDoc(kb);
    await gw.http
      .put(`/api/v1/admin/agents/${agent.id}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [kb] })
      .expect(200);
    const other = kb.toUpperCase();
    expect(other).not.toBe(kb);

    for (const [method, path] of [
      ['get', `${KB}/${other}`],
      ['get', `${KB}/${kb}/documents/${doc.body.id.toUpperCase()}`],
      ['delete', `${KB}/${kb}/documents/${doc.body.id.toUpperCase()}`],
      ['delete', `${KB}/${other}`],
    ] as const) {
      const res = await gw.http[method](path).set(gw.admin);
      expect([`${method} ${path}`, res.status]).toEqual([`${method} ${path}`, 404]);
    }
    // Every base the agent holds still exists, with its document.
    const bound = (await gw.http.get(`/api/v1/admin/agents/${agent.id}`).set(gw.admin).expect(200)).body
      .knowledgeBaseIds;
    expect(bound).toEqual([kb]);
    await gw.http.get(`${KB}/${kb}/documents/${doc.body.id}`).set(gw.admin).expect(200);
  });

  it('keeps the counts exact and every document searchable when documents are added concurrently', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'concurrent', tenantId: 'acme' });
    const shared = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
    const added = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        gw.http
          .post(`${KB}/${kb}/documents`)
          .set(gw.admin)
          .send({ title: `Doc ${i}`, content: `${shared} unique${i}word`, mimeType: 'text/plain' }),
      ),
    );
    expect(added.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect((await gw.http.get(`${KB}/${kb}`).set(gw.admin)).body).toMatchObject({ documentCount: 8, chunkCount: 8 });
    expect(await searchBase(gw, kb, 'bravo', 20)).toHaveLength(8);
    const [top] = await searchBase(gw, kb, 'unique3word bravo', 20);
    expect(top.title).toBe('Doc 3');
  });

  it('deletes a document deleted several times at once only once: one 200, then 404, statistics intact', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'double-delete', tenantId: 'acme' });
    const add = (title: string, content: string) =>
      gw.http.post(`${KB}/${kb}/documents`).set(gw.admin).send({ title, content, mimeType: 'text/plain' }).expect(201);
    await add('Keep', 'refund window of thirty days');
    const drop = (await add('Drop', 'refund desk on the second floor')).body.id;
    const deletions = await Promise.all(
      Array.from({ length: 4 }, () => gw.http.delete(`${KB}/${kb}/documents/${drop}`).set(gw.admin)),
    );
    expect(deletions.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    // Found gone before its lock, or after another deletion took it: either 404 says where to list what is left.
    for (const refused of deletions.filter((r) => r.status === 404))
      expect(refused.body.error.message).toMatch(
        new RegExp(
          `^No document ${drop} in knowledge base ${kb}[;:].*GET /api/v1/admin/knowledge-bases/${kb}/documents`,
        ),
      );
    expect((await gw.http.get(`${KB}/${kb}`).set(gw.admin)).body).toMatchObject({ documentCount: 1, chunkCount: 1 });
    expect((await searchBase(gw, kb, 'refund', 5)).map((r) => r.title)).toEqual(['Keep']);
  });

  it('deletes a knowledge base deleted several times at once only once: one 200, then 404', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'double-base-delete', tenantId: 'acme' });
    await addRefundDoc(kb);
    const deletions = await Promise.all(Array.from({ length: 4 }, () => gw.http.delete(`${KB}/${kb}`).set(gw.admin)));
    expect(deletions.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    expect(deletions.find((r) => r.status === 404)!.body.error.code).toBe('NOT_FOUND');
    await gw.http.get(`${KB}/${kb}`).set(gw.admin).expect(404);
  });

  it('stores nothing of a document whose base is deleted while it is added', async () => {
    const { gw } = suite;
    const big = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} about refunds and returns.`).join('\n\n');
    for (let round = 0; round < 3; round++) {
      const kb = await createKnowledgeBase(gw, { name: `vanishing-${round}`, tenantId: 'acme' });
      const [added, deleted] = await Promise.all([
        gw.http
          .post(`${KB}/${kb}/documents`)
          .set(gw.admin)
          .send({ title: 'Big', content: big, mimeType: 'text/plain' }),
        new Promise((resolve) => setTimeout(resolve, 5)).then(() => gw.http.delete(`${KB}/${kb}`).set(gw.admin)),
      ]);
      expect([201, 404]).toContain(added.status);
      if (added.status === 404)
        expect(added.body.error.message).toMatch(
          /^(No knowledge base \S+ in your tenant; list them with GET \/api\/v1\/admin\/knowledge-bases\.|Knowledge base \S+ was deleted while the document was added; nothing was stored\. Add the document to another knowledge base \(GET \/api\/v1\/admin\/knowledge-bases lists them, POST creates one\)\.)$/,
        );
      expect(deleted.status).toBe(200);
      const ds = gw.app.get(DataSource);
      const [docs] = await ds.query('SELECT COUNT(*) AS n FROM knowledge_document WHERE knowledge_base_id = ?', [kb]);
      const [chunks] = await ds.query('SELECT COUNT(*) AS n FROM knowledge_chunk WHERE knowledge_base_id = ?', [kb]);
      const [terms] = await ds.query('SELECT COUNT(*) AS n FROM knowledge_term WHERE knowledge_base_id = ?', [kb]);
      expect([Number(docs.n), Number(chunks.n), Number(terms.n)]).toEqual([0, 0, 0]);
    }
  });

  it('deletes a base of more passages than a batch in several transactions, not in one that holds SQLite for seconds', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, { name: 'large-delete', tenantId: 'acme' });
    const doc = await addRefundDoc(kb);
    // More passages than two batches, written straight into the index (adding them through the API takes minutes).
    const ds = gw.app.get(DataSource);
    const extra = 2 * BASE_DELETE_BATCH + 500;
    for (let i = 0; i < extra; i += 500) {
      const rows = Array.from({ length: Math.min(500, extra - i) }, (_, j) => i + j);
      await ds.query(
        `INSERT INTO knowledge_chunk (knowledge_base_id, document_id, seq, heading, content, search_text, token_count) VALUES ${rows.map(() => '(?, ?, ?, NULL, ?, ?, 2)').join(', ')}`,
        rows.flatMap((n) => [kb, doc.body.id, n + 1, `passage ${n}`, `passage__ n${n}`]),
      );
    }
    // What TypeORM runs (transaction statements included, which its own statement cache hides from a driver recording).
    const statements: string[] = [];
    const logQuery = ds.logger.logQuery.bind(ds.logger);
    ds.logger.logQuery = (sql, ...rest) => (statements.push(sql), logQuery(sql, ...rest));
    try {
      await gw.http.delete(`${KB}/${kb}`).set(gw.admin).expect(200);
    } finally {
      ds.logger.logQuery = logQuery;
    }
    // Each transaction (from its BEGIN) that removed passages: one held them all, for seconds on SQLite.
    const transactions: string[][] = [];
    for (const sql of statements)
      if (/^\s*(BEGIN|START TRANSACTION)/i.test(sql)) transactions.push([]);
      else transactions.at(-1)?.push(sql);
    const removing = transactions.filter((t) => t.some((sql) => /DELETE FROM knowledge_chunk/i.test(sql)));
    expect(removing.length).toBeGreaterThanOrEqual(Math.ceil((extra + 1) / BASE_DELETE_BATCH));
    await gw.http.get(`${KB}/${kb}`).set(gw.admin).expect(404);
    const [chunks] = await ds.query('SELECT COUNT(*) AS n FROM knowledge_chunk WHERE knowledge_base_id = ?', [kb]);
    const [terms] = await ds.query('SELECT COUNT(*) AS n FROM knowledge_term WHERE knowledge_base_id = ?', [kb]);
    expect([Number(chunks.n), Number(terms.n)]).toEqual([0, 0]);
  });

  it('a deletion cut short by a crash leaves no base to list, search or bind; the job removes its passages', async () => {
    const { gw } = suite;
    const agentId = await createAgent(gw, { name: 'kb-crash-agent', tenantId: 'acme' });
    const kb = await createKnowledgeBase(gw, { name: 'cut-short', tenantId: 'acme' });
    await addRefundDoc(kb);
    const ds = gw.app.get(DataSource);
    const left = async () => {
      const counts = await Promise.all(
        ['knowledge_chunk', 'knowledge_term', 'knowledge_document'].map((table) =>
          ds.query<[{ n: unknown }]>(`SELECT COUNT(*) AS n FROM ${table} WHERE knowledge_base_id = ?`, [kb]),
        ),
      );
      return counts.map(([row]) => Number(row.n));
    };
    // Removing the passages fails once the base's own transaction has committed (the state a process that dies there
    // leaves): the base is deleted, so the answer says so, and the rest is left to the job.
    const index = gw.app.get(KnowledgeChunkIndex);
    const crash = jest.spyOn(index, 'removeBasePassages').mockRejectedValue(new Error('killed midway'));
    try {
      await gw.http.delete(`${KB}/${kb}`).set(gw.admin).expect(200);
    } finally {
      crash.mockRestore();
    }
    const [chunks, terms, documents] = await left();
    expect(chunks).toBeGreaterThan(0);
    expect(terms).toBeGreaterThan(0);
    expect(documents).toBe(0);
    // Gone for every reader: not listed, not readable, not searchable, not bindable, no new documents.
    await gw.http.get(`${KB}/${kb}`).set(gw.admin).expect(404);
    const list = await gw.http.get(KB).set(gw.admin).expect(200);
    expect(list.body.items.map((b: { id: string }) => b.id)).not.toContain(kb);
    await gw.http.post(`${KB}/${kb}/search`).set(gw.admin).send({ query: 'refund' }).expect(404);
    await gw.http
      .put(`/api/v1/admin/agents/${agentId}/knowledge-bases`)
      .set(gw.admin)
      .send({ knowledgeBaseIds: [kb] })
      .expect(404);
    await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 't', content: 'refund policy', mimeType: 'text/plain' })
      .expect(404);
    await gw.http.delete(`${KB}/${kb}`).set(gw.admin).expect(404);

    // The job (scheduled every KNOWLEDGE_DELETION_INTERVAL_MS) finishes deletions left for a minute: not this one yet,
    // then this one.
    expect(gw.app.get(SchedulerRegistry).doesExist('interval', KNOWLEDGE_BASE_DELETION_JOB)).toBe(true);
    const deletions = gw.app.get(KnowledgeBaseDeletions);
    expect(await deletions.finishAbandoned(Date.now() - 60_000)).toBe(0);
    expect((await left())[0]).toBeGreaterThan(0);
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
    try {
      await gw.app.get(KnowledgeBaseDeletionJob).run();
    } finally {
      clock.mockRestore();
    }
    expect(await left()).toEqual([0, 0, 0]);
    expect(await deletions.finishAbandoned(Date.now() + 1)).toBe(0);
  });

  it('refuses documents for an HTTP knowledge base (409)', async () => {
    const { gw } = suite;
    const kb = await createKnowledgeBase(gw, {
      name: 'remote',
      tenantId: 'acme',
      kind: 'HTTP',
      url: 'https://retrieval.example.com/search',
    });
    const res = await gw.http
      .post(`${KB}/${kb}/documents`)
      .set(gw.admin)
      .send({ title: 't', content: 'c', mimeType: 'text/plain' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('KNOWLEDGE_BASE_NOT_INTERNAL');
  });
});
