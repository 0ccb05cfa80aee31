import { parseSearchResponse } from './web-search.response';

describe('parseSearchResponse', () => {
  it('keeps text, numbers and booleans as text and reads an object or array field as empty, never "[object Object]"', () => {
    const text = JSON.stringify({
      results: [
        { title: 'Plain', url: 'https://example.test/a', snippet: 42 },
        { title: { en: 'nested' }, url: ['https://example.test/b'], snippet: true },
      ],
    });
    expect(parseSearchResponse(text)).toEqual([
      { title: 'Plain', url: 'https://example.test/a', snippet: '42' },
      { title: '', url: '', snippet: 'true' },
    ]);
  });
});
