import type { SideEffectLevel, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallError, ToolOutput } from '../tool-executor';
import { ToolCallPolicy } from './tool-call-policy';

const baseConfig = {
  toolDefaultTimeoutMs: 2000,
  toolMaxAttempts: 3,
  toolRetryBaseDelayMs: 10,
  toolRetryMaxAfterMs: 1000,
};

class FixedJitterPolicy extends ToolCallPolicy {
  constructor(
    config: typeof baseConfig,
    private readonly jitter: number,
  ) {
    super(config);
  }
  protected override random(): number {
    return this.jitter;
  }
}

function tool(sideEffect: SideEffectLevel, timeoutMs: number | null = null): ToolDescriptor {
  return { name: 't', sideEffect, timeoutMs } as ToolDescriptor;
}

const transient = (reachedRemote: boolean, extra: { retryAfterMs?: number; errorClass?: string } = {}) =>
  new ToolCallError('flaky', extra.errorClass ?? 'HTTP_RETRYABLE', {
    transient: true,
    reachedRemote,
    retryAfterMs: extra.retryAfterMs,
  });
const permanent = () =>
  new ToolCallError('bad request', 'HTTP_CLIENT_ERROR', { transient: false, reachedRemote: true });

/** An attempt function that fails with the given errors in turn, then succeeds; records when each attempt started. */
function scripted(errors: ToolCallError[]) {
  const startedAt: number[] = [];
  const fn = async (attempt: number): Promise<ToolOutput> => {
    startedAt.push(performance.now());
    const err = errors[attempt - 1];
    if (err) throw err;
    return { content: `ok on ${attempt}` };
  };
  return { fn, startedAt };
}

/**
 * Runs `call` on Jest's fake clock, moving it 10 ms at a time until the call settles (a minute at most): the policy's
 * timers and performance.now() move together, so a wait or a budget measures exactly what it is, however loaded the
 * machine.
 */
async function onFakeClock<T>(call: () => Promise<T>): Promise<T> {
  jest.useFakeTimers();
  try {
    let settled = false;
    const result = call().finally(() => (settled = true));
    for (let ms = 0; !settled; ms += 10) {
      if (ms >= 60_000) throw new Error('the call still runs after a minute on the fake clock');
      await jest.advanceTimersByTimeAsync(10);
    }
    return await result;
  } finally {
    jest.useRealTimers();
  }
}

describe('ToolCallPolicy', () => {
  describe('run', () => {
    it('returns the first successful output with one attempt', async () => {
      const outcome = await new ToolCallPolicy(baseConfig).run(tool('READ_ONLY'), scripted([]).fn);
      expect(outcome).toMatchObject({ output: { content: 'ok on 1' }, attempts: 1, timedOut: false });
      expect(outcome.error).toBeUndefined();
    });

    it.each(['READ_ONLY', 'IDEMPOTENT'] as const)(
      'retries a %s tool after a transient error that reached the remote',
      async (level) => {
        const outcome = await new ToolCallPolicy(baseConfig).run(tool(level), scripted([transient(true)]).fn);
        expect(outcome).toMatchObject({ output: { content: 'ok on 2' }, attempts: 2 });
      },
    );

    it('stops at TOOL_MAX_ATTEMPTS and returns the last error', async () => {
      const last = transient(true);
      const outcome = await new ToolCallPolicy(baseConfig).run(
        tool('READ_ONLY'),
        scripted([transient(true), transient(true), last, transient(true)]).fn,
      );
      expect(outcome).toMatchObject({ attempts: 3, timedOut: false });
      expect(outcome.error).toBe(last);
    });

    it('never retries a non-transient error', async () => {
      const outcome = await new ToolCallPolicy(baseConfig).run(tool('READ_ONLY'), scripted([permanent()]).fn);
      expect(outcome.attempts).toBe(1);
      expect(outcome.error?.errorClass).toBe('HTTP_CLIENT_ERROR');
    });

    it.each(['SIDE_EFFECT', 'HIGH_RISK'] as const)(
      'does not retry a %s tool once the request may have reached the remote',
      async (level) => {
        const outcome = await new ToolCallPolicy(baseConfig).run(tool(level), scripted([transient(true)]).fn);
        expect(outcome.attempts).toBe(1);
        expect(outcome.error?.reachedRemote).toBe(true);
      },
    );

    it.each(['SIDE_EFFECT', 'HIGH_RISK'] as const)(
      'retries a %s tool when the request provably never left',
      async (level) => {
        const outcome = await new ToolCallPolicy(baseConfig).run(
          tool(level),
          scripted([transient(false), transient(false)]).fn,
        );
        expect(outcome).toMatchObject({ output: { content: 'ok on 3' }, attempts: 3 });
      },
    );

    it('never retries a side-effecting tool after a timeout, even one flagged as not reaching the remote', async () => {
      const outcome = await new ToolCallPolicy(baseConfig).run(
        tool('SIDE_EFFECT'),
        scripted([transient(false, { errorClass: 'TIMEOUT' })]).fn,
      );
      expect(outcome.attempts).toBe(1);
    });

    it('treats anything but a ToolCallError as a non-transient failure that reached the remote', async () => {
      const outcome = await new ToolCallPolicy(baseConfig).run(tool('READ_ONLY'), async () => {
        throw new TypeError('bug');
      });
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({
        errorClass: 'EXECUTOR_ERROR',
        transient: false,
        reachedRemote: true,
        message: 'bug',
      });
    });

    it('aborts the in-flight attempt when the budget runs out and ends at the budget even if the attempt ignores its signal', async () => {
      let seen: AbortSignal | undefined;
      const outcome = await onFakeClock(() =>
        new ToolCallPolicy(baseConfig).run(tool('READ_ONLY', 120), (_attempt, signal) => {
          seen = signal;
          return new Promise<ToolOutput>(() => undefined);
        }),
      );
      expect(seen?.aborted).toBe(true);
      expect(outcome).toMatchObject({ timedOut: true, attempts: 1, durationMs: 120 });
      expect(outcome.error).toMatchObject({ errorClass: 'TIMEOUT', transient: true, reachedRemote: true });
      expect(outcome.error?.message).toBe(
        "Tool t timed out after 120 ms (retries included), its budget (the tool's timeoutMs, else TOOL_DEFAULT_TIMEOUT_MS); whether it took effect is unknown. Check before calling it again, ask it for less, or have an admin raise its timeoutMs (PATCH /api/v1/admin/tools/{id})",
      );
    });

    it('uses TOOL_DEFAULT_TIMEOUT_MS when the tool has no positive timeoutMs', async () => {
      const policy = new ToolCallPolicy({ ...baseConfig, toolDefaultTimeoutMs: 80 });
      expect(policy.budgetMs(tool('READ_ONLY', 0))).toBe(80);
      expect(policy.budgetMs(tool('READ_ONLY', 300))).toBe(300);
      const outcome = await onFakeClock(() =>
        policy.run(
          tool('READ_ONLY', 0),
          (_a, signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
        ),
      );
      expect(outcome.timedOut).toBe(true);
      expect(outcome.durationMs).toBe(80);
    });

    it('counts the budget over all attempts: the call ends at the budget, not after max attempts of it', async () => {
      let attempts = 0;
      const outcome = await onFakeClock(() =>
        new FixedJitterPolicy({ ...baseConfig, toolMaxAttempts: 10 }, 0).run(
          tool('READ_ONLY', 200),
          async (_a, signal) => {
            attempts++;
            await new Promise((resolve) => setTimeout(resolve, 60));
            if (signal.aborted) throw signal.reason;
            throw transient(true);
          },
        ),
      );
      // Ten attempts of 60 ms would need 600 ms: the 200 ms budget cuts the fourth (started at 180 ms).
      expect(outcome).toMatchObject({ timedOut: true, attempts: 4, durationMs: 200 });
      expect(attempts).toBe(4);
    });

    it('waits Retry-After before the next attempt', async () => {
      const { fn, startedAt } = scripted([transient(true, { retryAfterMs: 150 })]);
      const outcome = await onFakeClock(() => new FixedJitterPolicy(baseConfig, 0).run(tool('READ_ONLY'), fn));
      expect(outcome.attempts).toBe(2);
      expect(startedAt[1] - startedAt[0]).toBe(150);
    });

    it('ends the call when Retry-After is longer than TOOL_RETRY_MAX_AFTER_MS', async () => {
      const outcome = await onFakeClock(() =>
        new ToolCallPolicy(baseConfig).run(tool('READ_ONLY'), scripted([transient(true, { retryAfterMs: 5000 })]).fn),
      );
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({ errorClass: 'RETRY_AFTER_TOO_LONG', transient: false });
      expect(outcome.error?.message).toContain('5000 ms');
      expect(outcome.durationMs).toBe(0); // it did not wait the 5 s
    });

    it('does not start a wait that would end past the budget', async () => {
      // Had it started the 900 ms wait, the 300 ms budget would have cut it (timedOut).
      const outcome = await new ToolCallPolicy(baseConfig).run(
        tool('READ_ONLY', 300),
        scripted([transient(true, { retryAfterMs: 900 })]).fn,
      );
      expect(outcome).toMatchObject({ attempts: 1, timedOut: false });
      expect(outcome.error?.errorClass).toBe('HTTP_RETRYABLE');
    });

    it('says why it did not retry when the Retry-After wait would end past the budget, and how to allow it', async () => {
      const outcome = await new ToolCallPolicy(baseConfig).run(
        tool('READ_ONLY', 300),
        scripted([transient(true, { retryAfterMs: 900 })]).fn,
      );
      expect(outcome.error).toMatchObject({ errorClass: 'HTTP_RETRYABLE', transient: true, reachedRemote: true });
      expect(outcome.error?.message).toBe(
        "flaky (not retried: the 900 ms wait the service asked for (Retry-After) would end past the call's 300 ms budget; raise the tool's timeoutMs to allow it)",
      );
    });

    it('backs off exponentially from the base delay (full jitter scales it down)', async () => {
      const config = { ...baseConfig, toolRetryBaseDelayMs: 60 };
      const full = scripted([transient(true), transient(true)]);
      await onFakeClock(() => new FixedJitterPolicy(config, 0.999).run(tool('READ_ONLY'), full.fn));
      expect(full.startedAt[1] - full.startedAt[0]).toBeGreaterThanOrEqual(55);
      expect(full.startedAt[2] - full.startedAt[1]).toBeGreaterThanOrEqual(115);

      const none = scripted([transient(true), transient(true)]);
      await onFakeClock(() => new FixedJitterPolicy(config, 0).run(tool('READ_ONLY'), none.fn));
      // Without jitter's scale-up both waits are 0.
      expect(none.startedAt[2] - none.startedAt[0]).toBe(0);
    });

    it('stops when the caller cancels, aborting the in-flight attempt', async () => {
      const caller = new AbortController();
      let seen: AbortSignal | undefined;
      const run = new ToolCallPolicy(baseConfig).run(
        tool('READ_ONLY'),
        (_a, signal) => {
          seen = signal;
          return new Promise(() => undefined);
        },
        caller.signal,
      );
      caller.abort(new Error('user pressed stop'));
      const outcome = await run;
      expect(seen?.aborted).toBe(true);
      expect(outcome).toMatchObject({ timedOut: false, attempts: 1 });
      expect(outcome.error?.errorClass).toBe('CANCELLED');
      expect(outcome.error?.message).toContain('user pressed stop');
    });
  });

  describe('mayRetry', () => {
    const policy = new ToolCallPolicy(baseConfig);
    it.each([
      ['READ_ONLY', true, true, true],
      ['IDEMPOTENT', true, true, true],
      ['SIDE_EFFECT', true, true, false],
      ['SIDE_EFFECT', true, false, true],
      ['HIGH_RISK', true, false, true],
      ['HIGH_RISK', true, true, false],
      ['READ_ONLY', false, false, false],
    ] as const)('%s, transient=%s, reachedRemote=%s → %s', (level, isTransient, reached, expected) => {
      const err = new ToolCallError('x', 'X', { transient: isTransient, reachedRemote: reached });
      expect(policy.mayRetry({ sideEffect: level }, err)).toBe(expected);
    });
  });
});
