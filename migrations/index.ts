import { CreateFoundationTables1764460800000 } from './1764460800000-CreateFoundationTables';
import { CreateToolCallLog1764460900000 } from './1764460900000-CreateToolCallLog';
import { CreateActingTables1764461000000 } from './1764461000000-CreateActingTables';
import { CreateMcpServiceTables1764461100000 } from './1764461100000-CreateMcpServiceTables';
import { CreateTenantConfigVersion1764461200000 } from './1764461200000-CreateTenantConfigVersion';
import { CreateTenantSecrets1764461300000 } from './1764461300000-CreateTenantSecrets';
import { AddNameKeys1764461400000 } from './1764461400000-AddNameKeys';
import { AddHitlReviewers1764461500000 } from './1764461500000-AddHitlReviewers';
import { AddSessionRetentionIndex1764461600000 } from './1764461600000-AddSessionRetentionIndex';
import { WidenRequestSizedColumns1764461700000 } from './1764461700000-WidenRequestSizedColumns';
import { AddAgentLoopFieldsAndSessionEvents1764461800000 } from './1764461800000-AddAgentLoopFieldsAndSessionEvents';
import { StoreResumeResponses1764461900000 } from './1764461900000-StoreResumeResponses';
import { CreateKnowledgeBases1764462100000 } from './1764462100000-CreateKnowledgeBases';
import { CreateSkillTables1764462200000 } from './1764462200000-CreateSkillTables';
import { CreateArtifacts1764462300000 } from './1764462300000-CreateArtifacts';
import { CreateAgentRunTables1764462400000 } from './1764462400000-CreateAgentRunTables';
import { CreateAgentTasks1764462410000 } from './1764462410000-CreateAgentTasks';
import { TagKnowledgeSearchText1764462500000 } from './1764462500000-TagKnowledgeSearchText';
import { AddListingIndexes1764462600000 } from './1764462600000-AddListingIndexes';
import { AddArtifactRetentionIndex1764462700000 } from './1764462700000-AddArtifactRetentionIndex';
import { ExactIdentifierCollation1764462800000 } from './1764462800000-ExactIdentifierCollation';
import { ExactKnowledgeBaseNameKey1764462900000 } from './1764462900000-ExactKnowledgeBaseNameKey';
import { ExactAgentNameKey1764463000000 } from './1764463000000-ExactAgentNameKey';
import { AddModelProviderNameKey1764463100000 } from './1764463100000-AddModelProviderNameKey';
import { ExactSkillFilePath1764463200000 } from './1764463200000-ExactSkillFilePath';
import { AddAgentRunFinishReason1764463300000 } from './1764463300000-AddAgentRunFinishReason';
import { WidenKnowledgeBaseNameKey1764463400000 } from './1764463400000-WidenKnowledgeBaseNameKey';
import { WidenAgentAndModelProviderNameKeys1764463500000 } from './1764463500000-WidenAgentAndModelProviderNameKeys';
import { AddMcpServiceNamespaceChooser1764463640000 } from './1764463640000-AddMcpServiceNamespaceChooser';
import { AddSessionEventOnceKey1764463700000 } from './1764463700000-AddSessionEventOnceKey';
import { CreateSessionEventOutbox1764463800000 } from './1764463800000-CreateSessionEventOutbox';
import { CountSessionEventOutboxAttempts1764463900000 } from './1764463900000-CountSessionEventOutboxAttempts';
import { ExactEntityIdCollation1764464600000 } from './1764464600000-ExactEntityIdCollation';
import { CreateKnowledgeBaseDeletion1764464700000 } from './1764464700000-CreateKnowledgeBaseDeletion';
import { AddAgentMessageReasoning1764464800000 } from './1764464800000-AddAgentMessageReasoning';
import { AddResumeClaimIndex1764465100000 } from './1764465100000-AddResumeClaimIndex';
import { AddSessionListIndexes1764465200000 } from './1764465200000-AddSessionListIndexes';
import { AddToolLogToolNameIndex1764465300000 } from './1764465300000-AddToolLogToolNameIndex';
import { AddStatusToHitlSessionIndex1764465400000 } from './1764465400000-AddStatusToHitlSessionIndex';
import { IndexOpenSessionsByChange1764465500000 } from './1764465500000-IndexOpenSessionsByChange';

/** Every migration, in order. The only schema source: `synchronize` is never on. */
export const GATEWAY_MIGRATIONS = [
  CreateFoundationTables1764460800000,
  CreateToolCallLog1764460900000,
  CreateActingTables1764461000000,
  CreateMcpServiceTables1764461100000,
  CreateTenantConfigVersion1764461200000,
  CreateTenantSecrets1764461300000,
  AddNameKeys1764461400000,
  AddHitlReviewers1764461500000,
  AddSessionRetentionIndex1764461600000,
  WidenRequestSizedColumns1764461700000,
  AddAgentLoopFieldsAndSessionEvents1764461800000,
  StoreResumeResponses1764461900000,
  CreateKnowledgeBases1764462100000,
  CreateSkillTables1764462200000,
  CreateArtifacts1764462300000,
  CreateAgentRunTables1764462400000,
  CreateAgentTasks1764462410000,
  TagKnowledgeSearchText1764462500000,
  AddListingIndexes1764462600000,
  AddArtifactRetentionIndex1764462700000,
  ExactIdentifierCollation1764462800000,
  ExactKnowledgeBaseNameKey1764462900000,
  ExactAgentNameKey1764463000000,
  AddModelProviderNameKey1764463100000,
  ExactSkillFilePath1764463200000,
  AddAgentRunFinishReason1764463300000,
  WidenKnowledgeBaseNameKey1764463400000,
  WidenAgentAndModelProviderNameKeys1764463500000,
  AddMcpServiceNamespaceChooser1764463640000,
  AddSessionEventOnceKey1764463700000,
  CreateSessionEventOutbox1764463800000,
  CountSessionEventOutboxAttempts1764463900000,
  ExactEntityIdCollation1764464600000,
  CreateKnowledgeBaseDeletion1764464700000,
  AddAgentMessageReasoning1764464800000,
  AddResumeClaimIndex1764465100000,
  AddSessionListIndexes1764465200000,
  AddToolLogToolNameIndex1764465300000,
  AddStatusToHitlSessionIndex1764465400000,
  IndexOpenSessionsByChange1764465500000,
];
