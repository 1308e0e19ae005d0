import type { Command } from 'commander';
import { stringify } from 'yaml';
import { KINDS } from '../../api/generated/kinds.js';
import { buildCrd } from '../../api/crd.js';

/** The CRD manifests of every karmada-lite kind, as one multi-document YAML stream. */
export function crdManifests(): string {
  return KINDS.map((k) => stringify(buildCrd(k.crd, k.schema), { lineWidth: 0 })).join('---\n');
}

export function registerCrds(program: Command): void {
  program
    .command('crds')
    .description('Print the CustomResourceDefinitions of every karmada-lite API (apiextensions.k8s.io/v1).')
    .addHelpText('after', `
The manifests install as they are into a kube-apiserver, with structural schemas and defaults:
  karmada-lite crds | kubectl apply --server-side -f -`)
    .action(() => {
      process.stdout.write(crdManifests());
    });
}
