import { validateSync } from 'class-validator';
import { CharLength, charCount } from './char-length';

class Named {
  @CharLength(1, 4)
  name: unknown;

  @CharLength(1, 2, { each: true })
  tags: unknown[] = [];
}

function problems(name: unknown, tags: unknown[] = []): string[] {
  return validateSync(Object.assign(new Named(), { name, tags })).flatMap((e) => Object.values(e.constraints ?? {}));
}

describe('charCount', () => {
  it('counts code points: a character outside the BMP is one, a variation selector is one more', () => {
    expect(charCount('𠮷野家')).toBe(3);
    expect(charCount('❤️')).toBe(2);
    expect(charCount('İ'.toLowerCase())).toBe(2);
  });
});

describe('CharLength', () => {
  it('takes a string of min to max code points', () => {
    expect(problems('a')).toEqual([]);
    expect(problems('𠮷𠮷𠮷𠮷')).toEqual([]);
    expect(problems('❤️❤️')).toEqual([]);
  });

  it('refuses a string that @Length would take: an emoji and its variation selector are two characters', () => {
    expect(problems('❤️❤️x')).toEqual(['name must be shorter than or equal to 4 characters']);
    expect(problems('a\uFE0Fb\uFE0Fc\uFE0F')).toEqual(['name must be shorter than or equal to 4 characters']);
  });

  it('refuses an empty string and a value that is not a string, saying the range', () => {
    expect(problems('')).toEqual(['name must be longer than or equal to 1 characters']);
    expect(problems(5)).toEqual(['name must be longer than or equal to 1 and shorter than or equal to 4 characters']);
  });

  it('checks each item of an array with { each: true }', () => {
    expect(problems('a', ['ab', '❤️'])).toEqual([]);
    expect(problems('a', ['ab', '❤️x'])).toEqual(['each value in tags must be shorter than or equal to 2 characters']);
  });
});
