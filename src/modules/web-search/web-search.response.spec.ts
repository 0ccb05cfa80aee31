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

describe('parseSearchResponse of another shape', () => {
  it('says the provider is misconfigured and the model should go on without it', () => {
    const hint =
      '; web search is misconfigured (WEB_SEARCH_URL must answer {"results":[{"title","url","snippet"}]}): go on without it';
    expect(() => parseSearchResponse('<html>')).toThrow(`the search provider did not answer JSON${hint}`);
    expect(() => parseSearchResponse('{"items":[]}')).toThrow(
      `the search provider answered without a results list${hint}`,
    );
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
