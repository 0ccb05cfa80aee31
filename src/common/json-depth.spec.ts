import { jsonTextNestsDeeperThan, jsonValueNestsDeeperThan } from './json-depth';

describe('jsonTextNestsDeeperThan', () => {
  it('counts nested objects and arrays, on text and on UTF-8 bytes alike', () => {
    const text = '{"a":[{"b":[1]}]}';
    expect(jsonTextNestsDeeperThan(text, 4)).toBe(false);
    expect(jsonTextNestsDeeperThan(text, 3)).toBe(true);
    expect(jsonTextNestsDeeperThan(Buffer.from(text), 3)).toBe(true);
    expect(jsonTextNestsDeeperThan(Buffer.from(text), 4)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTextNestsDeeperThan('{"a":"[[[[{{{{","b":"\\"[[[["}', 1)).toBe(false);
    expect(jsonTextNestsDeeperThan(Buffer.from('{"é":"[[[[ü\\\\"}'), 1)).toBe(false);
  });

  it('counts depth, not the number of siblings', () => {
    expect(jsonTextNestsDeeperThan(`[${'[],'.repeat(10_000)}[]]`, 2)).toBe(false);
  });
});

describe('jsonValueNestsDeeperThan', () => {
  it('walks 100,000 levels without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(jsonValueNestsDeeperThan(deep, 64)).toBe(true);
    expect(jsonValueNestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(jsonValueNestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
  });
});
