import { argumentsSizeProblem } from './tool-arguments.size';

describe('argumentsSizeProblem', () => {
  it('accepts arguments up to the limit, measured in UTF-8 bytes of their JSON', () => {
    expect(argumentsSizeProblem(undefined, { a: 'x'.repeat(100) }, 200)).toBeNull();
    expect(argumentsSizeProblem('{"a":"ééé"}', { a: 'ééé' }, 14)).toBeNull();
  });

  it('names the size and the limit when over it (a JSON string as sent, an object as its JSON)', () => {
    expect(argumentsSizeProblem('{"a":"ééé"}', { a: 'ééé' }, 13)).toBe(
      'arguments are 14 bytes of JSON, over the limit of 13 bytes; send large content in smaller parts',
    );
    expect(argumentsSizeProblem(undefined, { a: 'x'.repeat(3000) }, 2048)).toMatch(
      /^arguments are 3,008 bytes of JSON, over the limit of 2,048 bytes/,
    );
  });
});
