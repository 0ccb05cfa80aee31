import { weightedOrder } from './nacos-instance.order';

const inst = (id: string, weight: number, healthy = true) => ({ id, weight, healthy, enabled: true });

describe('weightedOrder', () => {
  it('lists every eligible instance once, the first one picked by weight', () => {
    const a = inst('a', 1);
    const b = inst('b', 3);
    expect(weightedOrder([a, b], () => 0).map((i) => i.id)).toEqual(['a', 'b']);
    expect(weightedOrder([a, b], () => 0.5).map((i) => i.id)).toEqual(['b', 'a']);
  });

  it('leaves out instances of weight 0 and unhealthy ones', () => {
    expect(weightedOrder([inst('z', 0), inst('sick', 5, false), inst('ok', 1)], () => 0.3).map((i) => i.id)).toEqual([
      'ok',
    ]);
    expect(weightedOrder([], () => 0.3)).toEqual([]);
  });
});
