import MiniSearch from 'minisearch';
import { skillMatchTerms } from './skill-match.tokenizer';

export interface RankableSkill {
  id: string;
  name: string;
  description: string;
}

export interface SkillMatch {
  id: string;
  name: string;
  score: number;
  /** The terms of the skill's name and description that matched the text. */
  terms: string[];
}

/**
 * Ranks skills by how well their name and description match a text, with BM25 (MiniSearch), the name counting
 * double. Deterministic: equal scores are ordered by name. Skills that match no term are left out.
 */
export function rankSkills(text: string, skills: readonly RankableSkill[]): SkillMatch[] {
  const index = new MiniSearch<RankableSkill>({
    fields: ['name', 'description'],
    storeFields: ['name'],
    tokenize: (value, field) => skillMatchTerms(field === 'name' ? value.replace(/-/g, ' ') : value),
    processTerm: (term) => term,
    searchOptions: { boost: { name: 2 }, combineWith: 'OR', prefix: false, fuzzy: false },
  });
  index.addAll(skills.map((s) => ({ id: s.id, name: s.name, description: s.description })));
  const terms = skillMatchTerms(text);
  if (terms.length === 0) return [];
  return index
    .search({ queries: [...new Set(terms)], combineWith: 'OR' })
    .map((r) => ({ id: String(r.id), name: String(r.name), score: r.score, terms: r.terms }))
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
