import type { MetaCondition } from './generated/types.js';

/**
 * A metav1.Condition, as bindings, Works and Clusters carry them; shared by the core and the scheduler. The
 * generated types declare it once (`MetaCondition`, scripts/generate.ts) for the kinds whose schema checks only
 * the condition's types.
 */
export type Condition = MetaCondition;
