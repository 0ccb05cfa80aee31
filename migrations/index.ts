import { CreateFoundationTables1764460800000 } from './1764460800000-CreateFoundationTables';

/** Every migration, in order. The only schema source: `synchronize` is never on. */
export const GATEWAY_MIGRATIONS = [CreateFoundationTables1764460800000];
