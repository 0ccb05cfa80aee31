import { KeyedSerialQueue, KeyedSingleFlight } from './mcp-sync.single-flight';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('KeyedSingleFlight', () => {
  it('runs one task per key; callers during it share ONE queued run that starts after it', async () => {
    const flights = new KeyedSingleFlight<number>();
    const first = gate();
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    const task = async (): Promise<number> => {
      const n = ++runs;
      maxConcurrent = Math.max(maxConcurrent, ++concurrent);
      if (n === 1) await first.opened;
      concurrent--;
      return n;
    };
    const a = flights.run('svc', task);
    const b = flights.run('svc', task);
    const c = flights.run('svc', task);
    expect(flights.busy('svc')).toBe(true);
    first.open();
    await expect(Promise.all([a, b, c])).resolves.toEqual([1, 2, 2]);
    expect(runs).toBe(2);
    expect(maxConcurrent).toBe(1);
    expect(flights.busy('svc')).toBe(false);
  });

  it('keeps keys independent and starts afresh once idle', async () => {
    const flights = new KeyedSingleFlight<string>();
    await expect(Promise.all([flights.run('a', async () => 'a'), flights.run('b', async () => 'b')])).resolves.toEqual([
      'a',
      'b',
    ]);
    await expect(flights.run('a', async () => 'again')).resolves.toBe('again');
  });

  it('passes a failure to the callers of that run only; the queued run still happens', async () => {
    const flights = new KeyedSingleFlight<string>();
    const first = gate();
    const failing = flights.run('k', async () => {
      await first.opened;
      throw new Error('boom');
    });
    const queued = flights.run('k', async () => 'ok');
    first.open();
    await expect(failing).rejects.toThrow('boom');
    await expect(queued).resolves.toBe('ok');
  });

  it('idle() waits for running and queued tasks', async () => {
    const flights = new KeyedSingleFlight<void>();
    const first = gate();
    const done: string[] = [];
    void flights.run('k', async () => {
      await first.opened;
      done.push('first');
    });
    void flights.run('k', async () => void done.push('queued'));
    const idle = flights.idle().then(() => done.push('idle'));
    first.open();
    await idle;
    expect(done).toEqual(['first', 'queued', 'idle']);
  });
});

describe('KeyedSerialQueue', () => {
  it('runs every task of a key, one after another, in order', async () => {
    const queue = new KeyedSerialQueue();
    const first = gate();
    const order: string[] = [];
    const a = queue.run('k', async () => {
      await first.opened;
      order.push('a');
    });
    const b = queue.run('k', async () => void order.push('b'));
    const other = queue.run('other', async () => void order.push('other'));
    await other;
    expect(order).toEqual(['other']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['other', 'a', 'b']);
  });
});
