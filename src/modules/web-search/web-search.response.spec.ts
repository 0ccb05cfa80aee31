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

describe('parseSearchResponse on hostile text', () => {
  it("removes control and bidi characters from a provider's results, as from an HTTP knowledge base's passages", () => {
    const text = JSON.stringify({
      results: [
        { title: 'Invoice\u202Efdp.exe', url: 'https://example.test/\u2066a', snippet: 'Pay\u001b[2J now.\n\tOk' },
      ],
    });
    expect(parseSearchResponse(text)).toEqual([
      { title: 'Invoicefdp.exe', url: 'https://example.test/a', snippet: 'Pay[2J now.\n\tOk' },
    ]);
  });
});
