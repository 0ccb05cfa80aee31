/** Error codes of knowledge bases. */
export enum KnowledgeBasesErrorCode {
  /** The tenant already has a knowledge base of that name (names compare case-insensitively). */
  KNOWLEDGE_BASE_NAME_TAKEN = 'KNOWLEDGE_BASE_NAME_TAKEN',
  /** Documents are stored only in INTERNAL knowledge bases; an HTTP one searches the team's own service. */
  KNOWLEDGE_BASE_NOT_INTERNAL = 'KNOWLEDGE_BASE_NOT_INTERNAL',
  /** The retrieval service of an HTTP knowledge base could not be reached or gave an unusable answer. */
  KNOWLEDGE_BASE_UNREACHABLE = 'KNOWLEDGE_BASE_UNREACHABLE',
}
