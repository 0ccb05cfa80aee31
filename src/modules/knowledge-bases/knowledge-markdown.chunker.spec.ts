import { cpuTimedUnder } from '@test/support/cpu-time';
import { chunkDocument, MAX_HEADING_CHARS } from './knowledge-markdown.chunker';

describe('chunkDocument', () => {
  it('cuts Markdown along its headings and gives each passage its heading path', () => {
    const md = [
      'Intro line.',
      '# Install',
      'Run the installer.',
      '## Linux',
      'Use the package.',
      '',
      'Then start it.',
      '# Use',
      'Call the API.',
    ].join('\n');
    expect(chunkDocument(md, 'text/markdown')).toEqual([
      { seq: 0, heading: null, content: 'Intro line.' },
      { seq: 1, heading: 'Install', content: 'Run the installer.' },
      { seq: 2, heading: 'Install > Linux', content: 'Use the package.\n\nThen start it.' },
      { seq: 3, heading: 'Use', content: 'Call the API.' },
    ]);
  });

  it('cuts a very long heading path (it repeats in every chunk; MySQL stores it in a TEXT column)', () => {
    const [chunk] = chunkDocument(`# ${'标题'.repeat(12_000)}\nBody.`, 'text/markdown');
    expect([...chunk.heading!]).toHaveLength(MAX_HEADING_CHARS);
    expect(chunk.content).toBe('Body.');
  });

  it('keeps a fenced code block whole, even with # lines and blank lines inside', () => {
    const md = '# Script\n```sh\n# not a heading\n\necho hi\n```\nAfter.';
    const chunks = chunkDocument(md, 'text/markdown');
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ heading: 'Script', content: '```sh\n# not a heading\n\necho hi\n```\nAfter.' });
  });

  it('treats plain text headings as text', () => {
    expect(chunkDocument('# not a heading\n\nsecond', 'text/plain')).toEqual([
      { seq: 0, heading: null, content: '# not a heading\n\nsecond' },
    ]);
  });

  it('bounds every chunk and overlaps consecutive chunks of a section', () => {
    const sentences = Array.from({ length: 120 }, (_, i) => `Sentence number ${i} says something useful.`);
    const text = `# Long\n${sentences.slice(0, 60).join(' ')}\n\n${sentences.slice(60).join(' ')}`;
    const chunks = chunkDocument(text, 'text/markdown', { maxChars: 400, overlapChars: 80 });
    expect(chunks.length).toBeGreaterThan(8);
    for (const c of chunks) {
      expect(c.content.length).toBeLessThanOrEqual(400);
      expect(c.heading).toBe('Long');
    }
    for (let i = 1; i < chunks.length; i++) {
      const previousEnd = chunks[i - 1].content.slice(-30);
      expect(chunks[i].content).toContain(previousEnd);
    }
    for (const s of sentences) expect(chunks.some((c) => c.content.includes(s))).toBe(true);
  });

  it('cuts a paragraph without spaces or sentence ends (Chinese, a long token) within the bound', () => {
    const chunks = chunkDocument('退'.repeat(2500), 'text/plain', { maxChars: 500, overlapChars: 50 });
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const c of chunks) expect(c.content.length).toBeLessThanOrEqual(500);
  });

  it.each([
    ['## Title', 'Title'],
    ['   ### Spaced title ###', 'Spaced title'],
    ['# closing hashes #  ', 'closing hashes'],
    ['## foo#bar', 'foo#bar'],
    ['#\tTabbed', 'Tabbed'],
  ])('reads the ATX heading %j as %j', (line, heading) => {
    expect(chunkDocument(`${line}\nBody.`, 'text/markdown')).toEqual([{ seq: 0, heading, content: 'Body.' }]);
  });

  it.each([['#no space'], ['    # four spaces'], ['####### seven']])('reads %j as text', (line) => {
    expect(chunkDocument(`${line}\nBody.`, 'text/markdown')[0]).toMatchObject({ heading: null });
  });

  /**
   * Once cubic: the text group backtracked against the closing sequence (3,000 blanks took 6 s, 4,000: 15 s). Sized
   * so that a cubic reader fails here in about half a minute instead of hanging the suite.
   */
  it.each([
    ['a heading opening, 5 000 blanks and a stray carriage return', '#' + ' '.repeat(5_000) + '\rx'],
    ['a heading opening, 5 000 blanks and a line separator', '## ' + ' \t'.repeat(2_500) + '\u2028x'],
    ['a heading of 100 000 hashes and blanks', '# ' + '# '.repeat(100_000) + 'x'],
  ])('chunks %s in linear time', (_label, line) => {
    const { value: chunks, cpuMs } = cpuTimedUnder(2_000, () => chunkDocument(`${line}\nBody.`, 'text/markdown'));
    expect(cpuMs).toBeLessThan(2_000); // cubic: half a minute; linear: milliseconds
    expect(chunks.length).toBeGreaterThan(0);
  });

  it('cuts heading paths in time linear in the document: a 200 000-character heading above 150 subheadings', () => {
    const md =
      `# ${'标'.repeat(200_000)}\n` + Array.from({ length: 150 }, (_, i) => `## Part ${i}\nBody ${i}.`).join('\n');
    const { value: chunks, cpuMs } = cpuTimedUnder(2_000, () => chunkDocument(md, 'text/markdown'));
    expect(cpuMs).toBeLessThan(2_000); // the whole path spread per subheading: 13 s; cut first: ms
    expect(chunks).toHaveLength(150);
    expect(chunks[149]).toEqual({ seq: 149, heading: '标'.repeat(MAX_HEADING_CHARS), content: 'Body 149.' });
  });

  it('cuts a heading path of several long headings at MAX_HEADING_CHARS characters, never inside a character', () => {
    const [chunk] = chunkDocument(`# ${'a'.repeat(300)}\n## ${'😀'.repeat(400)}\nBody.`, 'text/markdown');
    expect(chunk.heading).toBe(`${'a'.repeat(300)} > ${'😀'.repeat(MAX_HEADING_CHARS - 303)}`);
  });

  it('never cuts a character outside the BMP (emoji, rare Chinese) in two: no chunk holds half of one', () => {
    const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (let shift = 0; shift < 8; shift++) {
      // A paragraph too long for a chunk, without spaces (cut anywhere), and paragraphs whose overlap starts anywhere.
      const unbroken = 'x'.repeat(shift) + '价格😀𠮷'.repeat(500);
      const paragraphs = Array.from({ length: 6 }, () => 'x'.repeat(shift) + '价格😀𠮷'.repeat(80)).join('\n\n');
      for (const text of [unbroken, paragraphs]) {
        const chunks = chunkDocument(text, 'text/plain');
        expect(chunks.length).toBeGreaterThan(1);
        expect(chunks.filter((c) => LONE_SURROGATE.test(c.content))).toEqual([]);
      }
    }
  });
});
