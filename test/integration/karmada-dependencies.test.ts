// The dependencies distributor end to end, as Karmada's e2e suite looks at it: the controller on the real
// host apiserver, two Deployments sharing a ConfigMap with propagateDeps. Karmada's events (reasons and
// messages verbatim from pkg/dependenciesdistributor), and the shared ConfigMap's attached binding taking
// conflictResolution and preserveResourcesOnDeletion from the live bindings that require it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { diagnose, edit, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `deps-e2e-${Date.now().toString(36)}`;
const RIC = `deps-e2e-broken-${Date.now().toString(36)}`;
const host = rest('host');
const member1 = rest('member1');
const RB = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}`;
const PP = (name: string) => `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${name}`;

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25', envFrom: [{ configMapRef: { name: 'shared' } }] }] } },
  },
});

const policy = (name: string, kind = 'Deployment') => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: NS },
  spec: { propagateDeps: true, resourceSelectors: [{ apiVersion: 'apps/v1', kind, name }], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
});

/** The controller's events in the suite's namespace, as `Kind/name type reason message`. */
async function events(): Promise<Array<{ line: string; count: number }>> {
  const list = await host.request('GET', `/api/v1/namespaces/${NS}/events`);
  return list.items.map((e: any) => ({ line: `${e.involvedObject.kind}/${e.involvedObject.name} ${e.type} ${e.reason} ${e.message}`, count: e.count ?? 1 }));
}

async function eventCount(line: string): Promise<number> {
  return (await events()).filter((e) => e.line === line).reduce((n, e) => n + e.count, 0);
}

function waitEvent(line: string, atLeast = 1): Promise<true> {
  return waitFor(`event "${line}"${atLeast > 1 ? ` x${atLeast}` : ''}`, async () => ((await eventCount(line)) >= atLeast ? true : undefined));
}

async function settings(): Promise<{ conflictResolution?: string; preserveResourcesOnDeletion?: boolean } | undefined> {
  const b = await get(host, RB('shared-configmap'));
  return b && { conflictResolution: b.spec.conflictResolution, preserveResourcesOnDeletion: b.spec.preserveResourcesOnDeletion };
}

function waitSettings(conflictResolution: string, preserve: boolean): Promise<true> {
  return waitFor(`the shared ConfigMap's binding at ${conflictResolution}/${preserve}`, async () => {
    const s = await settings();
    return s?.conflictResolution === conflictResolution && s.preserveResourcesOnDeletion === preserve ? true : undefined;
  });
}

const DEPS = `[{APIVersion:v1 Kind:ConfigMap Namespace:${NS} Name:shared LabelSelector:nil}]`;
const SYNCED = (b: string) => `ResourceBinding/${b} Normal SyncScheduleResultToDependenciesSucceed Sync schedule results to dependencies succeed.`;
const CONFLICT =
  'ResourceBinding/shared-configmap Warning DependencyPolicyConflict Dependency policy conflict detected: ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs false).';

describe('karmada-lite controller: the dependencies distributor', () => {
  let controller: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    controller = await startController();
  }, scaled(180_000));

  afterAll(async () => {
    await host.request('DELETE', `/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations/${RIC}`).catch(() => undefined);
    await host.request('DELETE', `/apis/apps/v1/namespaces/${NS}/statefulsets/broken`).catch(() => undefined);
    await removeDeployments(NS, ['a', 'b']);
    const code = await stopController(controller);
    if (code !== 0 && code !== null) console.error(controller?.logs.slice(-30).join('\n'));
  });

  it('reports Karmada\'s events and re-derives the shared dependency\'s settings from the bindings requiring it', async () => {
    try {
      await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: NS }, data: { k: 'v' } } });
      for (const name of ['a', 'b']) {
        await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: policy(name) });
        await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, { body: deployment(name) });
      }
      await waitFor('the shared ConfigMap on member1', () => get(member1, `/api/v1/namespaces/${NS}/configmaps/shared`));
      await waitEvent(`Deployment/a Normal GetDependenciesSucceed Get dependencies(${DEPS}) succeed.`);
      await waitEvent(SYNCED('a-deployment'));
      await waitEvent(SYNCED('b-deployment'));
      await waitSettings('Abort', false);

      // One parent moves to Overwrite and preserve: Overwrite and true win, and the mix is a conflict.
      await edit(host, PP('a'), (p) => Object.assign(p.spec, { conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true }));
      await waitSettings('Overwrite', true);
      await waitEvent(CONFLICT);
      // The Work of the ConfigMap carries the setting to the member.
      await waitFor('the shared ConfigMap\'s Work preserved on deletion', async () => {
        const works = (await host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works')).items as any[];
        const w = works.find((x) => x.spec?.workload?.manifests?.some((m: any) => m.kind === 'ConfigMap' && m.metadata?.namespace === NS && m.metadata?.name === 'shared'));
        return w?.spec?.preserveResourcesOnDeletion === true ? true : undefined;
      });

      // The other follows; then the first goes back: the second still wants Overwrite and preserve.
      await edit(host, PP('b'), (p) => Object.assign(p.spec, { conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true }));
      const before = await eventCount(SYNCED('a-deployment'));
      await edit(host, PP('a'), (p) => Object.assign(p.spec, { conflictResolution: 'Abort', preserveResourcesOnDeletion: false }));
      await waitEvent(SYNCED('a-deployment'), before + 1);
      expect(await settings()).toEqual({ conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });

      // The second stops propagating its dependencies: the settings come from the first alone.
      await edit(host, PP('b'), (p) => Object.assign(p.spec, { propagateDeps: false }));
      await waitSettings('Abort', false);
      expect((await get(host, RB('shared-configmap'))).spec.requiredBy.map((r: any) => r.name)).toEqual(['a-deployment']);

      // An interpreter that fails: GetDependenciesFailed on the workload, with the script's error.
      await host.request('POST', '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations', {
        body: {
          apiVersion: 'config.karmada.io/v1alpha1',
          kind: 'ResourceInterpreterCustomization',
          metadata: { name: RIC },
          spec: { target: { apiVersion: 'apps/v1', kind: 'StatefulSet' }, customizations: { dependencyInterpretation: { luaScript: 'function GetDependencies(desiredObj)\n  error("no dependencies today")\nend' } } },
        },
      });
      await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, { body: policy('broken', 'StatefulSet') });
      await host.request('POST', `/apis/apps/v1/namespaces/${NS}/statefulsets`, {
        body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'broken', namespace: NS }, spec: { replicas: 1, serviceName: 'broken', selector: { matchLabels: { app: 'broken' } }, template: { metadata: { labels: { app: 'broken' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } } },
      });
      const failed = await waitFor('GetDependenciesFailed on the StatefulSet', async () => (await events()).find((e) => e.line.startsWith('StatefulSet/broken Warning GetDependenciesFailed ')));
      expect(failed.line).toContain('no dependencies today');
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${await diagnose(controller)}\n${controller?.logs.slice(-20).join('\n')}\nevents:\n${(await events()).map((x) => `${x.count}x ${x.line}`).join('\n')}`);
    }
  });
});
