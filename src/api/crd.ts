/** Builds apiextensions.k8s.io/v1 CRD manifests; shared by `npm run generate` (crds/) and `karmada-lite crds`. */

export interface CrdMeta {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  listKind: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  served: boolean;
  storage: boolean;
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: Record<string, unknown>[];
}

export function buildCrd(meta: CrdMeta, openAPIV3Schema: Record<string, unknown>): Record<string, unknown> {
  const version: Record<string, unknown> = { name: meta.version, served: meta.served, storage: meta.storage, schema: { openAPIV3Schema } };
  if (meta.additionalPrinterColumns) version.additionalPrinterColumns = meta.additionalPrinterColumns;
  if (meta.subresources) version.subresources = meta.subresources;
  const names: Record<string, unknown> = { kind: meta.kind, listKind: meta.listKind, plural: meta.plural, singular: meta.singular };
  if (meta.shortNames) names.shortNames = meta.shortNames;
  if (meta.categories) names.categories = meta.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${meta.plural}.${meta.group}`, labels: { 'app.kubernetes.io/part-of': 'karmada-lite' } },
    spec: { group: meta.group, names, scope: meta.scope, versions: [version] },
  };
}
