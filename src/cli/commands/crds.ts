import type { Command } from 'commander';
import { stringify } from 'yaml';
import { KINDS } from '../../api/generated/kinds.js';
import { buildCrd } from '../../api/crd.js';
import { outputOption, parseOutput, printObjects, type Column, type KubeObject } from '../output.js';

type Crd = KubeObject & { spec: { group: string; scope: string; names: { kind: string; plural: string; shortNames?: string[] }; versions: Array<{ name: string }> } };

/** `crds -o wide`: what `kubectl get crds -o wide` would need to tell them apart. */
const CRD_COLUMNS: Column<Crd>[] = [
  { header: 'NAME', value: (c) => String(c.metadata?.name ?? '') },
  { header: 'KIND', value: (c) => c.spec.names.kind },
  { header: 'SCOPE', value: (c) => c.spec.scope },
  { header: 'VERSIONS', value: (c) => c.spec.versions.map((v) => v.name).join(',') },
  { header: 'SHORTNAMES', value: (c) => (c.spec.names.shortNames ?? []).join(',') || '<none>' },
];

const CRD_OUTPUTS = ['yaml', 'json', 'name', 'wide', 'jsonpath', 'custom-columns'] as const;

/** The CRD manifests of every karmada-lite kind, as one multi-document YAML stream. */
export function crdManifests(): string {
  return KINDS.map((k) => stringify(buildCrd(k.crd, k.schema), { lineWidth: 0 })).join('---\n');
}

export function registerCrds(program: Command): void {
  program
    .command('crds')
    .description('Print the CustomResourceDefinitions of every karmada-lite API (apiextensions.k8s.io/v1).')
    .addOption(outputOption(CRD_OUTPUTS, 'yaml is a multi-document stream, json a v1 List'))
    .addHelpText('after', `
The manifests install as they are into a kube-apiserver, with structural schemas and defaults:
  karmada-lite crds | kubectl apply --server-side -f -

Examples:
  karmada-lite crds -o wide                                  # a table: name, kind, scope, versions
  karmada-lite crds -o name                                  # customresourcedefinition.apiextensions.k8s.io/...
  karmada-lite crds -o jsonpath='{range .items[*]}{.spec.names.kind}{"\\n"}{end}'`)
    .action((opts: { output: string }) => {
      const out = parseOutput(opts.output, CRD_OUTPUTS);
      const crds = KINDS.map((k) => buildCrd(k.crd, k.schema) as unknown as Crd);
      process.stdout.write(printObjects(crds, out, { columns: CRD_COLUMNS, yaml: () => crdManifests() }));
    });
}
