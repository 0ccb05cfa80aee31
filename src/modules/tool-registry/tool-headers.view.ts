import { maskSecretRefs } from '@app/modules/tenant-secrets/tool-secret.refs';
import type { ToolDto } from './tool-registry.dto';

/**
 * A tool as an admin of `viewerTenantId` may see it: a platform-wide tool's header templates show
 * `${secret:***}` to a tenant's admin, who must not learn which platform secrets exist (the platform key sees all).
 */
export function toolDtoForViewer(dto: ToolDto, viewerTenantId: string | null): ToolDto {
  if (viewerTenantId === null || dto.tenantId !== null || !dto.headers) return dto;
  const headers = Object.fromEntries(Object.entries(dto.headers).map(([k, v]) => [k, maskSecretRefs(v)]));
  return { ...dto, headers };
}
