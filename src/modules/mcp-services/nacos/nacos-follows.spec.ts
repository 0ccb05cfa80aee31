import { FOLLOW_IDLE_MS, MAX_FOLLOWED_SERVICES, NacosFollows } from './nacos-follows';

/** NacosFollows on a clock the test moves, recording subscriptions, unsubscriptions and forgotten cache keys. */
function follows() {
  let now = 1_000_000;
  const subscribed: string[] = [];
  const stopped: string[] = [];
  const forgotten: string[] = [];
  const subject = new NacosFollows(
    (key) => forgotten.push(key),
    () => now,
  );
  const follow = (key: string) =>
    subject.follow(key, () => {
      subscribed.push(key);
      return () => stopped.push(key);
    });
  return { subject, follow, subscribed, stopped, forgotten, advance: (ms: number) => (now += ms) };
}

describe('NacosFollows', () => {
  it('subscribes to a service once, however often it is followed', () => {
    const f = follows();
    f.follow('ns/G@a');
    f.follow('ns/G@a');
    expect(f.subscribed).toEqual(['ns/G@a']);
    expect(f.subject.has('ns/G@a')).toBe(true);
  });

  it('lets go of a service no call used for the idle time, dropping its cached instances; used ones stay', () => {
    const f = follows();
    f.follow('ns/G@idle');
    f.follow('ns/G@busy');
    for (let minute = 1; minute <= 12; minute++) {
      f.advance(60_000);
      f.subject.touch('ns/G@busy');
    }
    expect(FOLLOW_IDLE_MS).toBeLessThan(12 * 60_000);
    expect(f.stopped).toEqual(['ns/G@idle']);
    expect(f.forgotten).toEqual(['ns/G@idle']);
    expect(f.subject.has('ns/G@idle')).toBe(false);
    expect(f.subject.has('ns/G@busy')).toBe(true);
    // Followed again on its next read, with a new subscription.
    f.follow('ns/G@idle');
    expect(f.subscribed).toEqual(['ns/G@idle', 'ns/G@busy', 'ns/G@idle']);
  });

  it(`follows at most ${MAX_FOLLOWED_SERVICES} services, letting go of the one used longest ago`, () => {
    const f = follows();
    for (let i = 0; i < MAX_FOLLOWED_SERVICES; i++) f.follow(`ns/G@s${i}`);
    f.subject.touch('ns/G@s0');
    f.follow('ns/G@new');
    expect(f.subject.size).toBe(MAX_FOLLOWED_SERVICES);
    expect(f.stopped).toEqual(['ns/G@s1']);
    expect(f.forgotten).toEqual(['ns/G@s1']);
    expect(f.subject.has('ns/G@s0')).toBe(true);
  });

  it('stops every subscription at shutdown', () => {
    const f = follows();
    f.follow('a');
    f.follow('b');
    f.subject.stopAll();
    expect(f.stopped).toEqual(['a', 'b']);
    expect(f.subject.size).toBe(0);
  });
});
