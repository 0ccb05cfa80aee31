import { Readable } from 'node:stream';
import { httpStatusError, toHttpToolOutput } from './http-response.reader';

describe('toHttpToolOutput', () => {
  it('decodes the body in the charset the Content-Type names (ISO-8859-1 é is not U+FFFD)', () => {
    const body = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    expect(toHttpToolOutput(200, { 'content-type': 'text/plain; charset=ISO-8859-1' }, body)).toEqual({
      content: 'café',
    });
    expect(toHttpToolOutput(200, { 'content-type': 'text/plain; charset="windows-1252"' }, body).content).toBe('café');
  });

  it('decodes UTF-16 JSON and parses it', () => {
    const body = Buffer.from('{"city":"Zürich"}', 'utf16le');
    expect(toHttpToolOutput(200, { 'content-type': 'application/json; charset=utf-16le' }, body)).toEqual({
      content: '{"city":"Zürich"}',
      structured: { city: 'Zürich' },
    });
  });

  it('drops a UTF-8 byte order mark, so JSON after it still parses', () => {
    const body = Buffer.from('\uFEFF{"a":1}', 'utf8');
    expect(toHttpToolOutput(200, { 'content-type': 'application/json' }, body)).toEqual({
      content: '{"a":1}',
      structured: { a: 1 },
    });
  });

  it('reads UTF-8 when no charset or an unknown one is named', () => {
    const body = Buffer.from('naïve', 'utf8');
    expect(toHttpToolOutput(200, { 'content-type': 'text/plain' }, body).content).toBe('naïve');
    expect(toHttpToolOutput(200, { 'content-type': 'text/plain; charset=x-nonsense' }, body).content).toBe('naïve');
    expect(toHttpToolOutput(200, {}, body).content).toBe('naïve');
  });
});

describe('httpStatusError', () => {
  it('quotes the error body in the charset the Content-Type names', async () => {
    const err = await httpStatusError(
      'GET http://x/y',
      400,
      { 'content-type': 'text/plain; charset=iso-8859-1' },
      Readable.from([Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9])]),
    );
    expect(err.message).toBe('GET http://x/y answered HTTP 400: résumé');
  });

  it('names a binary error body instead of quoting its bytes', async () => {
    const err = await httpStatusError(
      'GET http://x/y',
      503,
      { 'content-type': 'image/gif' },
      Readable.from([Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x00, 0xff])]),
    );
    expect(err.message).toBe('GET http://x/y answered HTTP 503: [binary body: image/gif]');
  });
});

describe('httpStatusError on a redirect', () => {
  it('is not retried, names where it pointed and says how to fix the tool', async () => {
    const err = await httpStatusError(
      'GET http://x/old',
      301,
      { location: 'https://x.example.com/new' },
      Readable.from([]),
    );
    expect(err).toMatchObject({ errorClass: 'HTTP_REDIRECT', transient: false, reachedRemote: true });
    expect(err.message).toBe(
      "GET http://x/old answered HTTP 301 (redirect to https://x.example.com/new, not followed: a redirect could lead anywhere); set the tool's endpoint to the URL the service answers at",
    );
  });
});

describe('toHttpToolOutput on binary bodies', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe]);

  it.each([
    ['an image', 'image/png', png],
    ['a PDF', 'application/pdf; name=report.pdf', Buffer.alloc(3000, 0x25)],
    ['an Office document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', png],
    ['bytes that are not UTF-8, with no Content-Type', '', png],
    ['bytes that are not UTF-8, of a type the gateway does not know', 'application/x-custom', png],
  ])('summarizes %s instead of decoding it as text', (_label, type, body) => {
    const headers = type ? { 'content-type': type } : {};
    const mediaType = type ? type.split(';')[0] : 'application/octet-stream';
    const size = body.length < 1024 ? `${body.length} B` : `${(body.length / 1024).toFixed(1)} KB`;
    expect(toHttpToolOutput(200, headers, body)).toEqual({
      content: `[binary response: ${mediaType}, ${size}, HTTP 200]`,
    });
  });

  it.each([
    ['an SVG image (XML)', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['JSON of a vendor type', 'application/vnd.api+json', '{"data":[]}'],
    ['UTF-8 text with no Content-Type', '', 'plain words, naïve'],
  ])('reads %s as text', (_label, type, text) => {
    const headers = type ? { 'content-type': type } : {};
    expect(toHttpToolOutput(200, headers, Buffer.from(text)).content).toBe(text);
  });

  it('reads a body declared as text as text even with a stray byte that is not UTF-8', () => {
    const body = Buffer.concat([Buffer.from('total: 3 '), Buffer.from([0xff])]);
    expect(toHttpToolOutput(200, { 'content-type': 'text/plain' }, body).content).toBe('total: 3 \uFFFD');
  });
});
