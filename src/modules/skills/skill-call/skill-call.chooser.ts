import type { SessionTask } from '@app/modules/loop-acting/sessions/session.types';
import type { SkillEntity } from '../skill.entity';
import { rankSkills } from './skill-match.ranker';

/** A second match scoring at least this share of the best one is "close": the model is asked to pick. */
export const CLOSE_MATCH_RATIO = 0.8;

export type SkillChoice =
  | { kind: 'chosen'; skill: SkillEntity; reason: string }
  | { kind: 'list'; message: string; candidates: string[] }
  | { kind: 'not-bound'; message: string };

/**
 * Which bound skill a SKILL_CALL means: `skill` if given, else the session task's `skill`, else the bound skill
 * whose name and description best match the task description (BM25). Several close matches, no task or no match:
 * a list to pick from, nothing chosen. `bound` holds usable skills with a published release, one per name.
 */
export function chooseSkill(
  requested: string | undefined,
  task: SessionTask | null,
  bound: SkillEntity[],
): SkillChoice {
  const named = requested ?? task?.skill;
  if (named !== undefined) {
    const skill = bound.find((s) => s.name === named);
    if (!skill)
      return {
        kind: 'not-bound',
        message: `skill ${named} is not bound to this agent${requested === undefined ? " (named by the session's task)" : ''}; bound skills: ${names(bound)}`,
      };
    return {
      kind: 'chosen',
      skill,
      reason: requested !== undefined ? 'you named it' : "the session's task names it",
    };
  }
  const description = task?.description?.trim() ?? '';
  if (description === '')
    return listOf(bound, 'The session has no task description to match skills against; nothing was activated.');
  const matches = rankSkills(description, bound);
  if (matches.length === 0)
    return listOf(bound, "No bound skill's name or description matches the session's task; nothing was activated.");
  const [best, next] = matches;
  const close = matches.filter((m) => m.score >= best.score * CLOSE_MATCH_RATIO);
  if (close.length > 1)
    return listOf(
      bound.filter((s) => close.some((m) => m.id === s.id)),
      `Several bound skills match the session's task closely (${close.map((m) => `${m.name} ${m.score.toFixed(2)}`).join(', ')}); nothing was activated.`,
    );
  const skill = bound.find((s) => s.id === best.id)!;
  const runnerUp = next ? `; next best ${next.name} ${next.score.toFixed(2)}` : '; no other skill matched';
  return {
    kind: 'chosen',
    skill,
    reason: `it best matches the session's task: the terms ${best.terms.map((t) => JSON.stringify(t)).join(', ')} of its name and description (BM25 score ${best.score.toFixed(2)}${runnerUp})`,
  };
}

function listOf(skills: SkillEntity[], why: string): SkillChoice {
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return {
    kind: 'list',
    candidates: skills.map((s) => s.name),
    message: `${why} Call SKILL_CALL again with "skill" set to one of:\n${lines.join('\n')}`,
  };
}

function names(skills: SkillEntity[]): string {
  return skills.length === 0 ? '(none)' : skills.map((s) => s.name).join(', ');
}
