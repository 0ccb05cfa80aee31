export const WEB_SEARCH_MODES = ['DISABLED', 'AUTO', 'ALWAYS'] as const;
export type WebSearchMode = (typeof WEB_SEARCH_MODES)[number];

export const SIDE_EFFECT_POLICIES = ['ALLOW', 'APPROVE_SIDE_EFFECTS', 'READ_ONLY'] as const;
export type SideEffectPolicy = (typeof SIDE_EFFECT_POLICIES)[number];

/** Who decides the agent's HITL requests: the runtime through resume (v1), or only an admin (`POST /admin/hitl/{id}/decision`). */
export const HITL_REVIEWERS = ['RUNTIME', 'ADMIN'] as const;
export type HitlReviewer = (typeof HITL_REVIEWERS)[number];

/** Order of web-search modes: a request may only narrow the agent's mode (pick the lower). */
const WEB_SEARCH_MODE_RANK: Record<WebSearchMode, number> = { DISABLED: 0, AUTO: 1, ALWAYS: 2 };

export function narrowWebSearchMode(agentMode: WebSearchMode, requested?: WebSearchMode): WebSearchMode {
  if (!requested) return agentMode;
  return WEB_SEARCH_MODE_RANK[requested] < WEB_SEARCH_MODE_RANK[agentMode] ? requested : agentMode;
}
