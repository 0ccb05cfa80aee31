import { nameKeyOf } from '@app/common/name-key';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AiToolEntity } from '@app/modules/tool-registry/ai-tool.entity';
import { ToolRegistryRepository } from '@app/modules/tool-registry/tool-registry.repository';
import { ConfigVersionService } from '@app/database/config-version.service';
import { isUniqueViolation } from '@app/database/unique-violation';
import { LocalToolHandlerRegistry } from './local-tool-handler.registry';
import { FeignToolRepository } from './feign-tool.repository';
import { isScannerOwned, planOrphan, planTool, ReconcileStep } from './feign-tool-reconcile.plan';
import { overriddenFields } from './feign-tool.drift';
import { ToolChecklistService } from '@app/modules/tool-registry/checklist/tool-checklist.service';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';

/** What one reconcile did, by tool name. */
export interface FeignReconcileReport {
  inserted: string[];
  updated: string[];
  unchanged: string[];
  /** Rows whose decorator is gone (disabled, never deleted). */
  orphaned: string[];
  /** Names held by a DB or MCP tool: the decorator was not registered. */
  clashes: string[];
  /** Tools another writer changed between our read and our write; re-read and re-planned. */
  raced: string[];
}

const MAX_REPLANS = 3;

/**
 * After bootstrap, upserts the scanned tools into `ai_tool` (platform-wide) following the reconcile plan.
 * Each write commits with a config-version bump; a unique violation or a lost compare-and-set (another
 * instance or an admin got there first) re-reads the row and plans again. Nothing changed → no write.
 */
@Injectable()
export class FeignToolReconciler implements OnApplicationBootstrap {
  private readonly logger = new Logger(FeignToolReconciler.name);
  private last: FeignReconcileReport | undefined;

  constructor(
    private readonly handlers: LocalToolHandlerRegistry,
    private readonly feignTools: FeignToolRepository,
    private readonly registry: ToolRegistryRepository,
    private readonly configVersion: ConfigVersionService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly checklists: ToolChecklistService,
    private readonly catalog: BuiltinToolCatalog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.reconcile();
    this.reportChecklists();
  }

  /** The scanned tools' checklists at start-up: a FAIL, and a schema a model format rewrites with a loss, are logged. */
  private reportChecklists(): void {
    for (const { definition } of this.handlers.all()) {
      const checklist = this.checklists.run({ ...definition, httpMethod: null, headers: null, tenantId: null });
      const failed = checklist.items.filter((i) => i.status === 'FAIL').map((i) => `${i.check}: ${i.message}`);
      if (failed.length > 0) this.logger.warn(`Tool ${definition.name}: checklist FAIL ${failed.join(' | ')}`);
      const lossy = checklist.items
        .filter((i) => i.check.startsWith('MODEL_') && i.status === 'WARN')
        .map((i) => i.check);
      if (lossy.length > 0)
        this.logger.log(
          `Tool ${definition.name}: its schema is rewritten with a loss for ${lossy.join(', ')} (GET /api/v1/admin/tools/{id}/checklist says how).`,
        );
    }
  }

  async reconcile(): Promise<FeignReconcileReport> {
    this.last = await this.apply(await this.plan());
    return this.last;
  }

  /** What the last reconcile of this instance did (undefined before the first). */
  get lastReport(): FeignReconcileReport | undefined {
    return this.last;
  }

  /** Reads the rows once and decides every step (no writes). */
  async plan(): Promise<ReconcileStep[]> {
    const scanned = this.handlers.all();
    const rows = await this.feignTools.findReconcileCandidates(scanned.map((t) => t.definition.name));
    const byName = new Map(rows.map((r) => [r.nameKey, r]));
    const now = Date.now();
    // Catalog built-ins (seeded by BuiltinToolsSeeder) are BUILTIN/LOCAL rows too, but no @Tool scan owns them.
    const catalogued = new Set(this.catalog.definitions().map((d) => d.name));
    const orphans = rows.filter(
      (r) => isScannerOwned(r) && !this.handlers.findByName(r.name) && !catalogued.has(r.name),
    );
    return [
      ...scanned.map((t) => planTool(t, byName.get(nameKeyOf(t.definition.name)), now)),
      ...orphans.map((r) => planOrphan(r, now)),
    ];
  }

  async apply(steps: ReconcileStep[]): Promise<FeignReconcileReport> {
    const report: FeignReconcileReport = {
      inserted: [],
      updated: [],
      unchanged: [],
      orphaned: [],
      clashes: [],
      raced: [],
    };
    for (const step of steps) await this.applyStep(step, report, 0);
    const writes = report.inserted.length + report.updated.length;
    if (writes || report.orphaned.length || report.clashes.length) {
      this.logger.log(
        `Local tools: ${report.inserted.length} added, ${report.updated.length} updated, ${report.unchanged.length} unchanged, ${report.orphaned.length} orphaned, ${report.clashes.length} name clash(es)`,
      );
    }
    return report;
  }

  private async applyStep(step: ReconcileStep, report: FeignReconcileReport, replans: number): Promise<void> {
    switch (step.kind) {
      case 'unchanged': {
        const fields = overriddenFields(step.tool.definition, step.row);
        if (fields.length)
          this.logger.log(`Tool ${step.name}: an admin changed ${fields.join(', ')}; kept (DB_OVERRIDDEN).`);
        report.unchanged.push(step.name);
        return;
      }
      case 'clash':
        this.logger.error(
          `Tool ${step.name} declared on ${step.tool.definition.endpoint} was not registered: a ${step.row.source} tool (id ${step.row.id}) already has this name platform-wide. Rename the decorator (options.name) or the other tool.`,
        );
        report.clashes.push(step.name);
        return;
      case 'orphan': {
        const { changes } = step;
        if (changes) {
          if (!(await this.compareAndSet(step, step.row, changes))) return this.replan(step, report, replans);
          this.logger.warn(
            `Tool ${step.name}: its decorator (${step.row.endpoint}) is gone; set DISABLED (row kept, ORPHANED).`,
          );
        }
        report.orphaned.push(step.name);
        return;
      }
      case 'insert':
        if (!(await this.write(step, (m) => this.registry.insert(m, step.row).then(() => true))))
          return this.replan(step, report, replans);
        report.inserted.push(step.name);
        return;
      case 'update':
        if (!(await this.compareAndSet(step, step.row, step.changes))) return this.replan(step, report, replans);
        if (step.replaced.length) {
          this.logger.warn(
            `Tool ${step.name}: the changed decorator replaced ${step.replaced.join(', ')} that may have been set by an admin; PATCH them again if so.`,
          );
        }
        report.updated.push(step.name);
        return;
    }
  }

  /** Updates the row only if it is still at the version the step was planned from. */
  private compareAndSet(step: ReconcileStep, row: AiToolEntity, changes: Partial<AiToolEntity>): Promise<boolean> {
    return this.write(step, (m) => this.registry.updateIfVersion(m, row.id, row.version, changes));
  }

  /** One write and the config-version bump in one transaction; false when the write lost a race. */
  private async write(step: ReconcileStep, write: (m: EntityManager) => Promise<boolean>): Promise<boolean> {
    try {
      return await this.dataSource.transaction(async (m) => {
        const done = await write(m);
        if (done) await this.configVersion.bump(m);
        return done;
      });
    } catch (err) {
      if (step.kind === 'insert' && isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async replan(step: ReconcileStep, report: FeignReconcileReport, replans: number): Promise<void> {
    if (replans >= MAX_REPLANS)
      throw new Error(`Tool ${step.name} kept changing while being registered; start the gateway again.`);
    if (!report.raced.includes(step.name)) report.raced.push(step.name);
    const row = await this.feignTools.findPlatformTool(step.name);
    const now = Date.now();
    const next =
      step.kind === 'orphan'
        ? row && isScannerOwned(row)
          ? planOrphan(row, now)
          : null
        : planTool(step.tool, row, now);
    if (next) await this.applyStep(next, report, replans + 1);
  }
}
