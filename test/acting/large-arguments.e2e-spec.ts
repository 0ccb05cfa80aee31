import { createTestDatabaseUrl, describeEachDialect, TestDatabase } from '@test/support/test-database';
import { createKey, startTestGateway, TestGateway, toolBody } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';
import { TOOL_ARGUMENTS_MAX_BYTES } from '@app/modules/tool-invocation/tool-arguments.size';
import { waitFor } from '@test/support/wait-for';

const MB = 1024 * 1024;

/** Arguments whose JSON is about `bytes` long: a file's contents, as a WRITE_FILE-like tool would receive them. */
function fileArguments(bytes: number, tag: string): Record<string, unknown> {
  return { path: `notes/${tag}.txt`, content: `${tag}:`.padEnd(bytes, 'abcdefghij') };
}

/** A result whose chunk boundaries (every 16,000 UTF-16 units) fall inside emoji when `offset` is odd. */
const emojiResult = (offset: number) => `${'x'.repeat(offset)}${'😀'.repeat(9_000)}`;

describeEachDialect('arguments of megabytes through act and resume', (dialect) => {
  let db: TestDatabase;
  let gw: TestGateway;
  let remote: RecordingHttpServer;
  let runtime: { Authorization: string };
  let agentId: string;

  const newSession = async () =>
    (await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u', permissions: [] }).expect(201))
      .body.id as string;

  beforeAll(async () => {
    remote = await new RecordingHttpServer().start();
    remote.handler = (req, res) => {
      const emoji = /\/emoji\/(\d)/.exec(req.url);
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(emoji ? emojiResult(Number(emoji[1])) : `stored ${req.body.length} bytes`);
    };
    db = await createTestDatabaseUrl(dialect);
    // No in-memory result cache: every reuse reads the stored result back from the database.
    gw = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', RESULT_STORE_MAX_BYTES: '0' });
    runtime = await createKey(gw, 'acme', 'runtime');
    const parameters = {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    };
    const tool = async (name: string, endpoint: string, sideEffect: string) =>
      (
        await gw.http
          .post('/api/v1/admin/tools')
          .set(gw.admin)
          .send(
            toolBody({
              name,
              tenantId: 'acme',
              endpoint: remote.url(endpoint),
              sideEffect,
              parameters,
              hitl: { approvalText: 'Write this file?' },
            }),
          )
          .expect(201)
      ).body.id;
    const ids = [
      await tool('save_file', '/write', 'IDEMPOTENT'),
      await tool('overwrite_file', '/overwrite', 'HIGH_RISK'),
      await tool('emoji_0', '/emoji/0', 'READ_ONLY'),
      await tool('emoji_1', '/emoji/1', 'READ_ONLY'),
    ];
    agentId = (
      await gw.http.post('/api/v1/admin/agents').set(gw.admin).send({ name: 'writer', tenantId: 'acme' }).expect(201)
    ).body.id;
    await gw.http.put(`/api/v1/admin/agents/${agentId}/tools`).set(gw.admin).send({ toolIds: ids }).expect(200);
  });

  afterAll(async () => {
    await gw?.close();
    await remote?.stop();
    await db?.drop();
  });

  beforeEach(() => remote.requests.splice(0));

  it('runs a call with 1 MB arguments (object or JSON string), and reuses it by toolCallId', async () => {
    const sessionId = await newSession();
    const args = fileArguments(MB, 'one');
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'w1', name: 'save_file', arguments: args },
          { id: 'w2', name: 'save_file', arguments: JSON.stringify(fileArguments(MB, 'two')) },
        ],
      })
      .expect(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(remote.requests.map((r) => JSON.parse(r.body))).toEqual([args, fileArguments(MB, 'two')]);

    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 2, toolCalls: [{ id: 'w1', name: 'save_file', arguments: args }] })
      .expect(200);
    expect(again.body.results[0]).toMatchObject({
      status: 'COMPLETED',
      reused: true,
      content: res.body.results[0].content,
    });
    expect(remote.requests).toHaveLength(2);

    // The tool log keeps a bounded start of the arguments (the journal has them whole).
    const logged = await waitFor(async () => {
      const rows = (await gw.http.get(`/api/v1/admin/tool-calls?sessionId=${sessionId}`).set(gw.admin).expect(200)).body
        .items;
      return rows.length === 2 ? rows : undefined;
    });
    for (const row of logged) {
      expect(row.arguments).toEqual({
        $truncated: expect.stringMatching(/^arguments of \d+ characters of JSON shortened for the log/),
        preview: expect.stringMatching(/^\{"path":"notes\/(one|two)\.txt","content":"(one|two):abcdefghij/),
      });
    }
  });

  it('interrupts a risky call with 1 MB arguments, and runs it with every byte once approved', async () => {
    const sessionId = await newSession();
    const args = fileArguments(MB, 'risky');
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({
        iteration: 1,
        toolCalls: [
          { id: 'r1', name: 'overwrite_file', arguments: args },
          { id: 'r2', name: 'save_file', arguments: fileArguments(MB, 'after') },
        ],
      })
      .expect(200);
    expect(res.body).toMatchObject({
      status: 'INTERRUPTED',
      results: [{ status: 'PENDING_APPROVAL' }, { status: 'NOT_RUN' }],
    });
    expect(remote.requests).toHaveLength(0);

    const approved = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'approve-1', decision: 'APPROVE' })
      .expect(200);
    expect(approved.body.results.map((r: { status: string }) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(remote.requests.map((r) => JSON.parse(r.body))).toEqual([args, fileArguments(MB, 'after')]);
  });

  it('takes arguments just under the limit through an interrupt and an approval', async () => {
    const sessionId = await newSession();
    const args = fileArguments(TOOL_ARGUMENTS_MAX_BYTES - 4096, 'edge');
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'edge', name: 'overwrite_file', arguments: args }] })
      .expect(200);
    expect(res.body.status).toBe('INTERRUPTED');
    const approved = await gw.http
      .post(`/api/v1/sessions/${sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'edge-ok' })
      .expect(200);
    expect(approved.body.results[0]).toMatchObject({
      status: 'COMPLETED',
      content: `stored ${JSON.stringify(args).length} bytes`,
    });
  });

  it('refuses arguments over the limit as a FAILED result naming both sizes, and runs nothing', async () => {
    const sessionId = await newSession();
    const args = fileArguments(TOOL_ARGUMENTS_MAX_BYTES + 1024, 'big');
    const res = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'b1', name: 'save_file', arguments: args }] })
      .expect(200);
    expect(res.body.results[0]).toMatchObject({ status: 'FAILED', isError: true });
    expect(res.body.results[0].content).toMatch(
      /^执行失败: arguments are \d[\d,]* bytes of JSON, over the limit of 8,388,608 bytes/,
    );
    expect(remote.requests).toHaveLength(0);
    const again = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'b1', name: 'save_file', arguments: args }] })
      .expect(200);
    expect(again.body.results[0]).toMatchObject({
      status: 'FAILED',
      reused: true,
      content: res.body.results[0].content,
    });
  });

  it('runs a 1 MB call and refuses an over-limit one in the same batch (results not stored)', async () => {
    const unstored = await startTestGateway(db.url, { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', RESULT_STORE_MAX_BYTES: '0' });
    try {
      const sessionId = await newSession();
      const calls = [
        { id: 'x1', name: 'save_file', arguments: fileArguments(MB, 'express') },
        { id: 'x2', name: 'save_file', arguments: fileArguments(TOOL_ARGUMENTS_MAX_BYTES + 1, 'big') },
      ];
      const res = await unstored.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 1, toolCalls: calls })
        .expect(200);
      expect(res.body.results[0]).toMatchObject({
        status: 'COMPLETED',
        content: `stored ${JSON.stringify(fileArguments(MB, 'express')).length} bytes`,
      });
      expect(res.body.results[1]).toMatchObject({
        status: 'FAILED',
        content: expect.stringMatching(/over the limit of 8,388,608 bytes/),
      });
      expect(remote.requests).toHaveLength(1);
    } finally {
      await unstored.close();
    }
  });

  it('stores results and resume responses longer than one chunk without breaking a character at a chunk boundary', async () => {
    for (const offset of [0, 1]) {
      const sessionId = await newSession();
      const calls = [
        { id: 'p', name: 'overwrite_file', arguments: fileArguments(64 * 1024, 'gate') },
        { id: 'e', name: `emoji_${offset}`, arguments: fileArguments(10, 'e') },
      ];
      await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 1, toolCalls: calls })
        .expect(200);
      const first = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'go' })
        .expect(200);
      expect(first.body.results[1]).toMatchObject({ status: 'COMPLETED', content: emojiResult(offset) });

      const replay = await gw.http
        .post(`/api/v1/sessions/${sessionId}/resume`)
        .set(runtime)
        .send({ clientMessageId: 'go' })
        .expect(200);
      expect(replay.text).toBe(first.text);
      expect(replay.body.results[1].content).toBe(emojiResult(offset));
      const reused = await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: 2, toolCalls: [calls[1]] })
        .expect(200);
      expect(reused.body.results[0]).toMatchObject({ reused: true, content: emojiResult(offset) });
    }
  });
});
