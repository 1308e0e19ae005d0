/**
 * Deletion protection, as Karmada's resourcedeletionprotection webhook: a resource template labelled
 * `resourcetemplate.karmada.io/deletion-protected: Always` cannot be deleted, whatever its kind and scope,
 * until the label is taken off. The webhook configuration sends only DELETEs of objects that carry the label
 * (an objectSelector), so the rest of the cluster's deletions never wait on it.
 */
import { DeletionProtectionAlways, DeletionProtectionLabel } from '../api/constants.js';

/** Karmada's path, so its webhook configurations work unchanged. */
export const DELETION_PROTECTION_PATH = '/validate-resourcedeletionprotection';

/** Karmada's words, kept to the letter: scripts and runbooks written against Karmada match on them. */
export const DELETION_PROTECTED_MESSAGE = `This resource is protected, please make sure to remove the label: ${DeletionProtectionLabel}`;

/**
 * Why this operation on an object with these labels is refused, or undefined when it may go. Only a DELETE
 * of an object whose label is exactly `Always` is refused: any other value, like no label, lets it go (Karmada
 * keeps other values for later policies, so they are not an error either).
 */
export function deletionProtectionDenial(operation: string, labels: unknown): string | undefined {
  if (operation !== 'DELETE') return undefined;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return undefined;
  return (labels as Record<string, unknown>)[DeletionProtectionLabel] === DeletionProtectionAlways ? DELETION_PROTECTED_MESSAGE : undefined;
}
