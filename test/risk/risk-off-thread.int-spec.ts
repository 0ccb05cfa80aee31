import { RISK_OFF_THREAD_FROM_CHARS, RiskDetector } from '@app/modules/risk/risk-detector';
import { RiskWorkerPool } from '@app/modules/risk/risk-worker.pool';

/** Prose of about `chars` characters with one destructive command line in the middle. */
function proseWithCommand(chars: number): string {
  const prose = 'We meet at noon; update the docs before the release. ';
  const half = prose.repeat(Math.ceil(chars / 2 / prose.length));
  return `${half}\nrm -rf /var/lib/important\n${half}`;
}

describe('risk evaluation of large arguments on a worker thread', () => {
  const detector = new RiskDetector();
  afterAll(() => detector.onApplicationShutdown());

  it('reads megabytes of arguments off the main thread and finds what the inline evaluation finds', async () => {
    const args = { path: 'notes/plan.md', content: proseWithCommand(4 * 1024 * 1024) };
    const schema = {
      type: 'object',
      properties: { path: { type: 'string' } },
      patternProperties: { '^con': { type: 'string', 'x-risk': 'shell' } },
    };
    let mainThreadRan = false;
    setImmediate(() => (mainThreadRan = true));
    const offThread = await detector.evaluateCallArguments(args, schema);
    // Inline, the evaluation would have finished before any other callback of the main thread could run.
    expect(mainThreadRan).toBe(true);
    expect(offThread).toEqual(detector.evaluateArguments(args, schema));
    expect(offThread.rules).toContainEqual(
      expect.objectContaining({ path: 'content', match: expect.stringContaining('rm -rf /var/lib/important') }),
    );
  });

  it('evaluates small arguments inline, before any other callback runs', async () => {
    const args = { command: 'rm -rf /', note: 'x'.repeat(RISK_OFF_THREAD_FROM_CHARS - 100) };
    let mainThreadRan = false;
    setImmediate(() => (mainThreadRan = true));
    const verdict = await detector.evaluateCallArguments(args);
    expect(mainThreadRan).toBe(false);
    expect(verdict).toMatchObject({ risky: true, rules: [{ path: 'command' }] });
  });

  it('queues calls for the one thread and answers each with its own verdict', async () => {
    const prose = 'Lorem ipsum dolor sit amet. '.repeat(RISK_OFF_THREAD_FROM_CHARS / 20);
    const verdicts = await Promise.all(
      [{ content: prose }, { content: `${prose}\nDROP TABLE users;` }, { content: prose }].map((args) =>
        detector.evaluateCallArguments(args),
      ),
    );
    expect(verdicts.map((v) => v.risky)).toEqual([false, true, false]);
  });

  it('counts readings the thread could not take as opaque (risky), never as safe', async () => {
    const pool = new RiskWorkerPool();
    try {
      // A function cannot be sent to a thread: the task fails before any rule runs.
      const unsendable = [{ text: 'ls', hint: 'auto', path: 'a', later: () => 'x' }] as never;
      const verdict = await pool.evaluate(unsendable);
      expect(verdict).toEqual({ risky: true, rules: [expect.objectContaining({ rule: 'opaque' })] });
      // The pool is still usable afterwards.
      expect((await pool.evaluate([{ text: 'rm -rf /', hint: 'shell' }])).risky).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('lets the calls under way have their verdicts when the gateway shuts down, before the thread ends', async () => {
    const closing = new RiskDetector();
    const prose = 'Lorem ipsum dolor sit amet. '.repeat(RISK_OFF_THREAD_FROM_CHARS / 20);
    const verdicts = Promise.all(
      [{ content: prose }, { content: `${prose}\nDROP TABLE users;` }].map((args) =>
        closing.evaluateCallArguments(args),
      ),
    );
    await closing.onApplicationShutdown();
    expect(await verdicts).toEqual([
      { risky: false, rules: [] },
      { risky: true, rules: [expect.objectContaining({ rule: 'drop', path: 'content' })] },
    ]);
  });

  it('starts a thread again after an earlier one was closed, in the same process (as each gateway instance does)', async () => {
    for (let round = 0; round < 3; round++) {
      const pool = new RiskWorkerPool();
      try {
        expect((await pool.evaluate([{ text: 'rm -rf /', hint: 'shell', path: 'command' }])).rules).toEqual([
          expect.objectContaining({ path: 'command' }),
        ]);
      } finally {
        await pool.close();
      }
    }
  });
});
