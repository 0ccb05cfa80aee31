import { Injectable } from '@nestjs/common';
import { nameKeyOf } from '@app/common/name-key';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { Page, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { LocalToolHandlerRegistry } from './local-tool-handler.registry';
import { FeignToolRepository } from './feign-tool.repository';
import { isScannerOwned } from './feign-tool-reconcile.plan';
import { overriddenFields } from './feign-tool.drift';
import type { LocalToolRegistration } from './feign-tool.types';
import type { FeignToolDto, FeignToolsQueryDto } from './feign-tools.dto';

/** The drift report: every scanned tool against its row, and the scanner rows whose decorator is gone. */
@Injectable()
export class FeignToolReportService {
  constructor(
    private readonly handlers: LocalToolHandlerRegistry,
    private readonly feignTools: FeignToolRepository,
  ) {}

  async list(query: FeignToolsQueryDto): Promise<Page<FeignToolDto>> {
    const scanned = this.handlers.all();
    const rows = await this.feignTools.findReconcileCandidates(scanned.map((t) => t.definition.name));
    const byName = new Map(rows.map((r) => [r.nameKey, r]));
    const items = [
      ...scanned.map((t) => scannedItem(t, byName.get(nameKeyOf(t.definition.name)))),
      ...rows.filter((r) => isScannerOwned(r) && !this.handlers.findByName(r.name)).map(orphanItem),
    ]
      .filter((i) => !query.drift || i.drift === query.drift)
      .sort((a, b) => a.name.localeCompare(b.name));
    const { skip, take } = pageWindow(query);
    return pageOf(items.slice(skip, skip + take), items.length, query);
  }
}

function scannedItem(t: LocalToolRegistration, row: AiToolEntity | undefined): FeignToolDto {
  const d = t.definition;
  const base = {
    name: d.name,
    provider: t.location.provider,
    method: t.location.method,
    source: d.source,
    serviceType: d.serviceType,
    checksum: t.checksum,
  };
  if (!row || !isScannerOwned(row)) {
    const problem = row
      ? `The name is taken by ${row.source} tool ${row.id}; rename the decorator (options.name) or that tool.`
      : 'Not in the registry yet: the start-up reconcile has not written it (see the start-up log).';
    return {
      ...base,
      toolId: null,
      version: null,
      drift: 'DB_OVERRIDDEN',
      overriddenFields: row ? ['name'] : [],
      rowChecksum: null,
      problem,
    };
  }
  const fields = overriddenFields(d, row);
  return {
    ...base,
    toolId: row.id,
    version: row.version,
    drift: fields.length ? 'DB_OVERRIDDEN' : 'IN_SYNC',
    overriddenFields: fields,
    rowChecksum: row.definitionChecksum,
    problem: null,
  };
}

function orphanItem(row: AiToolEntity): FeignToolDto {
  const [provider, method] = row.endpoint.split('.');
  return {
    name: row.name,
    toolId: row.id,
    provider,
    method: method ?? '',
    source: row.source,
    serviceType: row.serviceType,
    version: row.version,
    drift: 'ORPHANED',
    overriddenFields: [],
    checksum: row.definitionChecksum ?? '',
    rowChecksum: row.definitionChecksum,
    problem: null,
  };
}
