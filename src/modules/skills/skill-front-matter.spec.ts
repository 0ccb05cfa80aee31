import { cpuTimedUnder } from '@test/support/cpu-time';
import { MAX_FRONT_MATTER_CHARS, readSkillFrontMatter } from './skill-front-matter';
import { SkillPackageRefusal } from './skill-package.types';

describe('readSkillFrontMatter', () => {
  it('reads name and description from the YAML block (folded text, BOM, CRLF)', () => {
    const md = '\uFEFF---\r\nname: pdf-tables\r\ndescription: >\r\n  Extract tables\r\n  from PDFs\r\n---\r\n# Body';
    expect(readSkillFrontMatter(md)).toEqual({ name: 'pdf-tables', description: 'Extract tables from PDFs' });
  });

  it.each([
    ['no front matter', '# Just a title', /no YAML front matter/],
    ['no name', '---\ndescription: x\n---\n', /has no name/],
    ['a name that is not a skill name', '---\nname: Bad Name\ndescription: x\n---\n', /not a valid skill name/],
    ['no description', '---\nname: ok\n---\n', /has no description/],
    ['broken YAML', '---\nname: [unclosed\ndescription: x\n---\n', /not valid YAML/],
    ['a list instead of a mapping', '---\n- a\n- b\n---\n', /has no name|mapping/],
  ])('refuses %s', (_title, md, problem) => {
    expect(() => readSkillFrontMatter(md)).toThrow(SkillPackageRefusal);
    expect(() => readSkillFrontMatter(md)).toThrow(problem);
  });

  it('refuses a front matter over MAX_FRONT_MATTER_CHARS before parsing it (the YAML key check is quadratic)', () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const md = `---\nname: big\ndescription: x\n${keys}\n---\n# Body`;
    const { cpuMs } = cpuTimedUnder(2_000, () =>
      expect(() => readSkillFrontMatter(md)).toThrow(/more than 16384: keep name, description/),
    );
    expect(cpuMs).toBeLessThan(2_000); // parsed: about 12 s (200,000 keys: 9 minutes)
  });

  it('reads a front matter just under the bound', () => {
    const filler = `metadata: ${'x'.repeat(MAX_FRONT_MATTER_CHARS - 60)}`;
    const md = `---\nname: near-limit\ndescription: fits\n${filler}\n---\n`;
    expect(readSkillFrontMatter(md)).toEqual({ name: 'near-limit', description: 'fits' });
  });
});
