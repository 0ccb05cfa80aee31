import { rankSkills } from './skill-match.ranker';

const SKILLS = [
  { id: '1', name: 'pdf-tables', description: 'Extract tables from PDF files into CSV' },
  { id: '2', name: 'slide-deck', description: 'Build a presentation slide deck from an outline' },
  { id: '3', name: 'invoice-cn', description: '从发票图片中识别金额、税号并生成报销单' },
  { id: '4', name: 'weekly-report', description: '根据本周的工作记录撰写周报' },
];

describe('rankSkills', () => {
  it('ranks the skill whose name and description match an English task first', () => {
    const [best, next] = rankSkills('Please pull the tables out of this PDF', SKILLS);
    expect(best).toMatchObject({ name: 'pdf-tables', terms: expect.arrayContaining(['pdf', 'tables']) });
    expect(next?.score ?? 0).toBeLessThan(best.score);
  });

  it('matches Chinese tasks against Chinese descriptions (words and character pairs)', () => {
    expect(rankSkills('帮我把这些发票报销一下', SKILLS)[0].name).toBe('invoice-cn');
    expect(rankSkills('写一份本周周报', SKILLS)[0].name).toBe('weekly-report');
  });

  it('finds nothing for a task that shares no term, and is deterministic', () => {
    expect(rankSkills('the of and', SKILLS)).toEqual([]);
    expect(rankSkills('deck of PDF slides', SKILLS)).toEqual(rankSkills('deck of PDF slides', SKILLS));
  });
});
