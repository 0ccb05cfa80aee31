import { mapCallToolResult } from './mcp-content.mapper';

describe('mapCallToolResult', () => {
  it('joins text items in order', () => {
    expect(
      mapCallToolResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ content: 'a\nb' });
  });

  it('summarizes binary items instead of inlining base64', () => {
    const png = Buffer.alloc(2048).toString('base64');
    const out = mapCallToolResult({
      content: [
        { type: 'text', text: 'see image' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(out.content).toBe('see image\n[image: image/png, 2.0 KB]\n[audio: audio/wav, 3 B]');
    expect(out.content).not.toContain(png.slice(0, 20));
  });

  it('keeps the text of embedded text resources and summarizes blobs and links', () => {
    const out = mapCallToolResult({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAA==' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(out.content).toBe(
      '[resource: file:///a.txt (text/plain)]\nhello\n[resource: file:///b.bin, 4 B]\n[resource link: c <file:///c>]',
    );
  });

  it('keeps isError as a tool-level error', () => {
    expect(mapCallToolResult({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({
      content: 'boom',
      isError: true,
    });
  });

  it('passes structuredContent through, and uses it as content when there is no content item', () => {
    expect(mapCallToolResult({ content: [], structuredContent: { n: 1 } })).toEqual({
      content: '{"n":1}',
      structured: { n: 1 },
    });
    expect(mapCallToolResult({ content: [{ type: 'text', text: 'n=1' }], structuredContent: { n: 1 } })).toEqual({
      content: 'n=1',
      structured: { n: 1 },
    });
  });
});
