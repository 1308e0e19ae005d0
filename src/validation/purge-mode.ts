/**
 * The failover proposal named the purge modes Immediately and Graciously; Karmada shipped Directly and
 * Gracefully. karmada-lite accepts the old names and rewrites them (spec README point 3).
 */
export const PURGE_MODE_ALIASES: Readonly<Record<string, string>> = { Immediately: 'Directly', Graciously: 'Gracefully' };

export function canonicalPurgeMode(mode: string): string {
  return PURGE_MODE_ALIASES[mode] ?? mode;
}

export function purgeModeAliasWarning(path: string, alias: string): string {
  return `${path}: purgeMode ${alias} is the failover proposal's name for ${PURGE_MODE_ALIASES[alias]}; it was rewritten to ${PURGE_MODE_ALIASES[alias]}, write ${PURGE_MODE_ALIASES[alias]} in your manifests`;
}
