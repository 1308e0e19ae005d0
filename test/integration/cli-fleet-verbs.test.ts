// karmadactl's multi-cluster verbs (issue 35) on the real apiservers, run as `karmada-lite ...` in this
// process: join member1's apiserver under a name of its own (JOINED, beside the member1/member2 Clusters the
// other suites register), top, cordon/uncordon/taint on it, then with the controller running: Ready,
// apply --all-clusters and -C, promote (from the member's kubeconfig and through the host's cluster proxy),
// unjoin reversing everything, register + unregister of a Pull cluster, and unjoin's --wait and --force with
// the controller down. One member can be joined once by its id (its kube-system uid): the suite ends with
// it unjoined, and its afterAll unjoins it if a test failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../time-scale.js';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '../../src/kube/rest.js';
import { runCli } from '../cli/run-cli.js';
import { serveAggregated } from './aggregated-env.js';
import { cluster, waitFor } from './env.js';
import { withFleet } from './fleet.js';
import { diagnose, edit, ensureBinary, get, ignoreConflict, installCrds, registerMembers, rest, startController, stopController, type Proc } from './harness.js';

const ID = Date.now().toString(36);
const NS = `verbs-${ID}`;
/** The member joined here; agent.test.ts registers member2 by its id and sets up an agent there. */
const MEMBER = 'member1';
const JOINED = 'joined1';
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const ES = `karmada-es-${JOINED}`;
const host = rest('host');
const member = rest(MEMBER);
const hostKc = ['--kubeconfig', cluster('host').kubeconfig];
const joinArgs = [JOINED, ...hostKc, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig];

/** Paths of what join makes, in the member and on the host. */
const memberPaths = [
  '/api/v1/namespaces/karmada-cluster/serviceaccounts/karmada-joined1',
  '/api/v1/namespaces/karmada-cluster/secrets/karmada-joined1',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles/karmada-controller-manager:karmada-joined1',
  '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/karmada-controller-manager:karmada-joined1',
  '/api/v1/namespaces/karmada-cluster/serviceaccounts/karmada-impersonator',
  '/api/v1/namespaces/karmada-cluster/secrets/karmada-impersonator',
];
const hostPaths = [`${CLUSTERS}/${JOINED}`, `/api/v1/namespaces/karmada-cluster/secrets/${JOINED}`, `/api/v1/namespaces/karmada-cluster/secrets/${JOINED}-impersonator`, `/api/v1/namespaces/${ES}`];

const present = async (c: typeof host, paths: readonly string[]) => {
  const out: string[] = [];
  for (const p of paths) if (await get(c, p)) out.push(p);
  return out;
};
const conditionOf = (o: any, type: string) => ((o?.status?.conditions ?? []) as any[]).find((c) => c.type === type);
/** The text lines of a run, without the trailing newline. */
const lines = (s: string) => s.trimEnd().split('\n');

// The token controller of the member's kube-controller-manager fills join's token Secrets: the kwok fleet only.
describe.skipIf(!withFleet())('karmadactl verbs against the real apiservers [kwok fleet]', () => {
  let ctrl: Proc | undefined;
  let memberId = '';

  beforeAll(async () => {
    ensureBinary();
    await installCrds(host);
    // As the other suites leave the host: member1 and member2 registered (by no id), beside the joined one.
    await registerMembers(host);
    for (const c of [host, rest('member1'), rest('member2')]) await ignoreConflict(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
    memberId = (await member.request('GET', '/api/v1/namespaces/kube-system')).metadata.uid;
  });

  afterAll(async () => {
    // A failed test may leave JOINED: unjoin it (forced) so that member1 can be joined again by a later run.
    if (await get(host, `${CLUSTERS}/${JOINED}`)) await runCli(['unjoin', ...joinArgs, '--wait', '30s', '--force']).catch(() => undefined);
    if (await get(host, `${CLUSTERS}/pulled1`)) await runCli(['unregister', 'pulled1', '--karmada-config', cluster('host').kubeconfig, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig, '--wait', '30s']).catch(() => undefined);
    // The suite's templates go while the controller runs, so that no Work of theirs outlives the suite.
    await host.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
    if (ctrl) {
      await waitFor('the Works of the suite removed', async () => {
        for (const m of ['member1', 'member2']) {
          const works = ((await get(host, `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`))?.items ?? []) as any[];
          if (works.some((w) => (w.spec?.workload?.manifests ?? []).some((o: any) => o.metadata?.namespace === NS || (o.kind === 'Namespace' && o.metadata?.name === NS)))) return undefined;
        }
        return true;
      }).catch((e) => console.warn(`cleanup: ${(e as Error).message}`));
    }
    const code = await stopController(ctrl);
    if (code !== 0) console.error(await diagnose(ctrl));
    for (const c of [rest('member1'), rest('member2')]) await c.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  it('usage errors exit 2 and write nothing', async () => {
    const usage = [
      ['join', JOINED, ...hostKc], // no --cluster-kubeconfig
      ['join', 'Bad_Name', ...hostKc, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig],
      ['join', ...joinArgs, '--dry-run=maybe'],
      ['join', ...joinArgs, '--cluster-kubeconfig', '/nonexistent/member.config'],
      ['unjoin', JOINED, ...hostKc, '--wait', 'soon'],
      ['unregister', JOINED, '--karmada-config', cluster('host').kubeconfig, '--wait', '-1s'],
      ['promote', 'deployment', 'web', '-n', NS, ...hostKc], // no -C
      ['promote', 'deployment', 'web', '-n', NS, '-C', JOINED, '--auto-create-policy=maybe', ...hostKc],
      ['apply', '-f', '/nonexistent/app.yaml', ...hostKc],
      ['apply', '-f', '-', '--all-clusters', '-C', JOINED, ...hostKc],
      ['cordon', ...hostKc],
      ['top', 'clusters', '-o', 'yaml', ...hostKc],
    ];
    for (const args of usage) {
      const r = await runCli(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(/^error: /);
    }
    expect(await present(host, hostPaths)).toEqual([]);
  });

  it('join --dry-run=client -o yaml prints every object join makes and writes nothing', async () => {
    const r = await runCli(['join', ...joinArgs, '--dry-run=client', '-o', 'yaml', '--cluster-provider', 'kwok', '--cluster-region', 'eu', '--cluster-zones', 'eu-1,eu-2', '--cluster-zones', 'eu-3']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
    const kinds = docs.flatMap((d: any) => (d.kind === 'List' ? d.items : [d])).map((o: any) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'ServiceAccount/karmada-joined1',
        'ClusterRole/karmada-controller-manager:karmada-joined1',
        'ClusterRoleBinding/karmada-controller-manager:karmada-joined1',
        'Secret/karmada-joined1',
        'ServiceAccount/karmada-impersonator',
        `Namespace/${ES}`,
        `Secret/${JOINED}`,
        `Secret/${JOINED}-impersonator`,
        `Cluster/${JOINED}`,
      ]),
    );
    const c = docs.flatMap((d: any) => (d.kind === 'List' ? d.items : [d])).find((o: any) => o.kind === 'Cluster');
    expect(c.spec).toMatchObject({ syncMode: 'Push', id: memberId, apiEndpoint: cluster(MEMBER).server, secretRef: { namespace: 'karmada-cluster', name: JOINED } });
    expect(c.spec).toMatchObject({ provider: 'kwok', region: 'eu', zones: ['eu-1', 'eu-2', 'eu-3'] });
    expect(await present(host, hostPaths)).toEqual([]);
    expect(await present(member, memberPaths)).toEqual([]);
  });

  it('join --dry-run=server sends every write with dryRun=All: nothing is stored', async () => {
    const r = await runCli(['join', ...joinArgs, '--dry-run=server']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cluster\.cluster\.karmada\.io\/joined1 created \(host\) \(server dry run\)$/m);
    expect(r.stdout).toMatch(/^serviceaccount\/karmada-joined1 created \(member\) \(server dry run\)$/m);
    expect(await present(host, hostPaths)).toEqual([]);
    expect(await present(member, memberPaths)).toEqual([]);
  });

  it('join makes the identity in the member and the Cluster, its Secrets and karmada-es-<name> on the host', async () => {
    const r = await runCli(['join', ...joinArgs]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`cluster(${JOINED}) is joined successfully`);
    expect(await present(member, memberPaths)).toEqual(memberPaths);
    expect(await present(host, hostPaths)).toEqual(hostPaths);
    const c = await get(host, `${CLUSTERS}/${JOINED}`);
    expect(c.spec).toMatchObject({
      syncMode: 'Push',
      id: memberId,
      apiEndpoint: cluster(MEMBER).server,
      secretRef: { namespace: 'karmada-cluster', name: JOINED },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: `${JOINED}-impersonator` },
    });
    const secret = await get(host, `/api/v1/namespaces/karmada-cluster/secrets/${JOINED}`);
    // The member's token controller issued it; the CA verifies the member's serving certificate.
    const memberToken = (await get(member, '/api/v1/namespaces/karmada-cluster/secrets/karmada-joined1')).data.token;
    expect(secret.data.token).toBe(memberToken);
    expect(secret.data.caBundle).toBeTruthy();
    expect(secret.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Cluster', name: JOINED, uid: c.metadata.uid })]);
    const binding = await get(member, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/karmada-controller-manager:karmada-joined1');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'karmada-joined1', namespace: 'karmada-cluster' }]);
  });

  it('join again changes nothing; the same member under another name is refused (exit 1)', async () => {
    const before = await Promise.all([...hostPaths, ...memberPaths.map((p) => `member:${p}`)].map(async (p) => (p.startsWith('member:') ? get(member, p.slice(7)) : get(host, p)).then((o) => o.metadata.resourceVersion)));
    const again = await runCli(['join', ...joinArgs]);
    expect(again.code).toBe(0);
    const objectLines = lines(again.stdout).filter((l) => / \((host|member)\)$/.test(l));
    expect(objectLines.length).toBeGreaterThanOrEqual(12);
    expect(objectLines.filter((l) => !/ unchanged \((host|member)\)$/.test(l))).toEqual([]);
    const after = await Promise.all([...hostPaths, ...memberPaths.map((p) => `member:${p}`)].map(async (p) => (p.startsWith('member:') ? get(member, p.slice(7)) : get(host, p)).then((o) => o.metadata.resourceVersion)));
    expect(after).toEqual(before);

    const other = await runCli(['join', 'joined1b', ...hostKc, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`has been registered as cluster ${JOINED}`);
    expect(await get(host, `${CLUSTERS}/joined1b`)).toBeUndefined();
  });

  it("top clusters prints the Cluster's status.resourceSummary as kubectl top node prints a node", async () => {
    // The cluster status controller owns this status; no controller runs yet, so the test writes the summary
    // itself to check the printer.
    await edit(
      host,
      `${CLUSTERS}/${JOINED}`,
      (c) => {
        c.status = {
          ...c.status,
          resourceSummary: { allocatable: { cpu: '8', memory: '16Gi', pods: '220' }, allocated: { cpu: '2500m', memory: '4Gi', pods: '11' }, allocating: { cpu: '500m', memory: '1Gi', pods: '2' } },
          nodeSummary: { totalNum: 2, readyNum: 2 },
        };
      },
      '/status',
    );
    const r = await runCli(['top', 'clusters', JOINED, ...hostKc]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lines(r.stdout).map((l) => l.split(/\s+/))).toEqual([
      ['NAME', 'CPU(cores)', 'CPU%', 'MEMORY(bytes)', 'MEMORY%', 'CPU-ALLOCATABLE', 'MEMORY-ALLOCATABLE', 'PODS'],
      [JOINED, '2500m', '31%', '4096Mi', '25%', '8000m', '16384Mi', '11/220'],
    ]);
    const wide = await runCli(['top', 'clusters', JOINED, '-o', 'wide', '--no-headers', ...hostKc]);
    expect(wide.code).toBe(0);
    expect(wide.stdout.trimEnd().split(/\s+/).slice(-3)).toEqual(['500m', '1024Mi', '2/2']);
    const missing = await runCli(['top', 'clusters', JOINED, 'no-such-cluster', ...hostKc]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("error: clusters don't exist: no-such-cluster\n");
    expect(await runCli(['top', 'clusters', '--sort-by', 'pods', ...hostKc])).toMatchObject({ code: 2, stdout: '' });
  });

  it('cordon and uncordon add and remove cluster.karmada.io/unschedulable:NoSchedule, as karmadactl', async () => {
    const taints = async () => ((await get(host, `${CLUSTERS}/${JOINED}`)).spec.taints ?? []) as any[];
    expect(await runCli(['cordon', JOINED, ...hostKc, '--dry-run=server'])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} cordoned (server dry run)\n` });
    expect(await taints()).toEqual([]);
    expect(await runCli(['cordon', JOINED, ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} cordoned\n`, stderr: '' });
    expect(await taints()).toEqual([{ key: 'cluster.karmada.io/unschedulable', effect: 'NoSchedule' }]);
    expect(await runCli(['cordon', JOINED, ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} already cordoned\n` });
    expect(await runCli(['uncordon', JOINED, ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} uncordoned\n` });
    expect(await taints()).toEqual([]);
    expect(await runCli(['cordon', 'no-such-cluster', ...hostKc])).toMatchObject({ code: 1, stdout: '' });
  });

  it('taint clusters adds, overwrites and removes taints with kubectl taint\'s rules', async () => {
    const taints = async () => ((await get(host, `${CLUSTERS}/${JOINED}`)).spec.taints ?? []) as any[];
    expect(await runCli(['taint', 'clusters', JOINED, 'foo=bar:NoSchedule', ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} tainted\n`, stderr: '' });
    expect(await taints()).toEqual([{ key: 'foo', value: 'bar', effect: 'NoSchedule' }]);
    // the same key and effect again: refused without --overwrite, nothing changes
    const dup = await runCli(['taint', 'clusters', JOINED, 'foo=baz:NoSchedule', ...hostKc]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain(`cluster ${JOINED} already has foo taint(s) with same effect(s) and --overwrite is false`);
    expect(await taints()).toEqual([{ key: 'foo', value: 'bar', effect: 'NoSchedule' }]);
    expect(await runCli(['taint', 'clusters', JOINED, 'foo=baz:NoSchedule', '--overwrite', ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} modified\n` });
    expect(await taints()).toEqual([{ key: 'foo', value: 'baz', effect: 'NoSchedule' }]);
    // another effect of the same key is another taint
    expect(await runCli(['taint', 'cluster', JOINED, 'foo:NoExecute', '--dry-run=client', '-o', 'json', ...hostKc])).toMatchObject({ code: 0 });
    expect(await taints()).toHaveLength(1);
    expect(await runCli(['taint', 'clusters', JOINED, 'foo:NoSchedule-', ...hostKc])).toMatchObject({ code: 0, stdout: `cluster.cluster.karmada.io/${JOINED} untainted\n` });
    expect(await taints()).toEqual([]);
    const gone = await runCli(['taint', 'clusters', JOINED, 'foo:NoSchedule-', ...hostKc]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('taint "foo:NoSchedule" not found');
    expect(await runCli(['taint', 'clusters', JOINED, 'foo=bar:PreferNoSchedule', ...hostKc])).toMatchObject({ code: 2, stdout: '' });
  });

  it('with the controller running the joined Cluster becomes Ready through the credentials join made', async () => {
    ctrl = await startController();
    await waitFor(`${JOINED} Ready`, async () => (conditionOf(await get(host, `${CLUSTERS}/${JOINED}`), 'Ready')?.status === 'True' ? true : undefined), 60_000);
  });

  it('top clusters prints the summary the cluster status controller posts from the member\'s kwok Nodes', async () => {
    const summary = await waitFor('member1 with a resourceSummary from its Nodes', async () => (await get(host, `${CLUSTERS}/member1`))?.status?.resourceSummary, 60_000);
    const r = await runCli(['top', 'clusters', 'member1', '--no-headers', ...hostKc]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const cols = r.stdout.trim().split(/\s+/);
    // NAME CPU(cores) CPU% MEMORY(bytes) MEMORY% CPU-ALLOCATABLE MEMORY-ALLOCATABLE PODS
    expect(cols[0]).toBe('member1');
    expect(cols[5]).toBe(`${Number(summary.allocatable.cpu) * 1000}m`);
    expect(cols[7]).toMatch(new RegExp(`^\\d+/${summary.allocatable.pods}$`));
  });

  it('apply --all-clusters applies the object and a PropagationPolicy beside it; the controller propagates it', async () => {
    const file = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'everywhere' }, data: { a: '1' } });
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = `${mkdtempSync(`${tmpdir()}/verbs-`)}/cm.json`;
    writeFileSync(path, file);
    const dry = await runCli(['apply', '-f', path, '-n', NS, '--all-clusters', '--dry-run=client', '-o', 'yaml', ...hostKc]);
    expect(dry.code).toBe(0);
    const policy = parseAllDocuments(dry.stdout).map((d) => d.toJS()).flatMap((d: any) => (d.kind === 'List' ? d.items : [d])).find((o: any) => o.kind === 'PropagationPolicy');
    expect(policy.spec).toEqual({ resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'everywhere', namespace: NS }], placement: { clusterAffinity: {} } });
    expect(await get(host, `/api/v1/namespaces/${NS}/configmaps/everywhere`)).toBeUndefined();

    const r = await runCli(['apply', '-f', path, '-n', NS, '--all-clusters', ...hostKc]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(['configmap/everywhere created', `propagationpolicy.policy.karmada.io/${policy.metadata.name} created`]);
    expect(await get(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${policy.metadata.name}`)).toBeTruthy();
    for (const m of ['member1', 'member2'] as const) {
      await waitFor(`the ConfigMap in ${m}`, async () => ((await get(rest(m), `/api/v1/namespaces/${NS}/configmaps/everywhere`))?.data?.a === '1' ? true : undefined), 60_000);
    }
    const manifestsOf = async (es: string) => ((await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${es}/works`)).items as any[]).flatMap((w) => w.spec?.workload?.manifests ?? []);
    for (const es of [ES, 'karmada-es-member1', 'karmada-es-member2']) {
      expect((await manifestsOf(es)).some((m: any) => m.kind === 'ConfigMap' && m.metadata?.name === 'everywhere')).toBe(true);
    }
    const again = await runCli(['apply', '-f', path, '-n', NS, '--all-clusters', ...hostKc]);
    expect(again).toMatchObject({ code: 0, stdout: `configmap/everywhere unchanged\npropagationpolicy.policy.karmada.io/${policy.metadata.name} unchanged\n` });

    // -C: to the named clusters only (unjoin below checks that its copy goes with the joined Cluster)
    writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-joined' }, data: { b: '2' } }));
    expect(await runCli(['apply', path, '-n', NS, '-C', JOINED, ...hostKc])).toMatchObject({ code: 0, stderr: '' });
    await waitFor(`only-joined in ${MEMBER}`, async () => ((await get(member, `/api/v1/namespaces/${NS}/configmaps/only-joined`)) ? true : undefined), 60_000);
    expect((await manifestsOf('karmada-es-member2')).some((m: any) => m.metadata?.name === 'only-joined')).toBe(false);
    expect(await runCli(['apply', path, '-n', NS, '-C', 'no-such-cluster', ...hostKc])).toMatchObject({ code: 1 });
  });

  it('promote adopts a Deployment that runs in the member: template and policy on the host, the member copy taken over in place', async () => {
    const labels = { app: 'adopted' };
    const created = await member.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: { metadata: { name: 'adopted', labels }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } },
    });
    const promote = ['promote', 'deployment', 'adopted', '-n', NS, '-C', JOINED, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig, ...hostKc];
    const dry = await runCli([...promote, '--dry-run=client', '-o', 'yaml']);
    expect(dry.code).toBe(0);
    const [template, policy] = parseAllDocuments(dry.stdout).map((d) => d.toJS()).flatMap((d: any) => (d.kind === 'List' ? d.items : [d]));
    expect(template.metadata.uid).toBeUndefined();
    expect(template.metadata.annotations['work.karmada.io/conflict-resolution']).toBe('overwrite');
    expect(policy.spec).toMatchObject({ placement: { clusterAffinity: { clusterNames: [JOINED] } }, conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });
    expect(await get(host, `/apis/apps/v1/namespaces/${NS}/deployments/adopted`)).toBeUndefined();

    const r = await runCli(promote);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(['deployment.apps/adopted created', `propagationpolicy.policy.karmada.io/${policy.metadata.name} created`]);
    expect(await get(host, `/apis/apps/v1/namespaces/${NS}/deployments/adopted`)).toBeTruthy();
    // Taken over: the member's copy carries the Work's annotation, with the uid it had.
    const adopted = await waitFor('the member copy adopted by the Work', async () => {
      const d = await get(member, `/apis/apps/v1/namespaces/${NS}/deployments/adopted`);
      return d?.metadata?.annotations?.['work.karmada.io/name'] ? d : undefined;
    }, 60_000);
    expect(adopted.metadata.uid).toBe(created.metadata.uid);

    const twice = await runCli(promote);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already exist in karmada control plane');

    // --auto-create-policy=false: the template only
    await member.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'template-only' }, data: { k: 'v' } } });
    const only = await runCli(['promote', 'configmap', 'template-only', '-n', NS, '-C', JOINED, '--cluster-kubeconfig', cluster(MEMBER).kubeconfig, '--auto-create-policy=false', ...hostKc]);
    expect(only).toMatchObject({ code: 0, stdout: 'configmap/template-only created\n', stderr: '' });
    expect((await host.request('GET', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`)).items.map((p: any) => p.metadata.name)).not.toContainEqual(expect.stringMatching(/^template-only-/));
  });

  it("promote -d through the host's cluster proxy (the impersonator join made): the workload and the ConfigMap it uses", async () => {
    const labels = { app: 'withdeps' };
    const cm = await member.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'withdeps-cfg' }, data: { k: 'v' } } });
    const created = await member.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        metadata: { name: 'withdeps', labels },
        spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', envFrom: [{ configMapRef: { name: 'withdeps-cfg' } }] }] } } },
      },
    });
    const aggregated = await serveAggregated(['cluster.karmada.io/v1alpha1']);
    try {
      const r = await runCli(['promote', 'deploy', 'withdeps', '-n', NS, '-C', JOINED, '-d', ...hostKc]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out.slice(0, 2)).toEqual(['configmap/withdeps-cfg created', 'deployment.apps/withdeps created']);
      expect(out[2]).toMatch(/^propagationpolicy\.policy\.karmada\.io\/withdeps-\w+ created$/);
      const policy = await get(host, `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/${out[2]!.split(' ')[0]!.split('/')[1]}`);
      expect(policy.spec.propagateDeps).toBe(true);
    } finally {
      await aggregated.stop();
    }
    for (const [what, path, uid] of [
      ['Deployment', `/apis/apps/v1/namespaces/${NS}/deployments/withdeps`, created.metadata.uid],
      ['ConfigMap', `/api/v1/namespaces/${NS}/configmaps/withdeps-cfg`, cm.metadata.uid],
    ] as const) {
      const adopted = await waitFor(`the member's ${what} adopted`, async () => {
        const o = await get(member, path);
        return o?.metadata?.annotations?.['work.karmada.io/name'] ? o : undefined;
      }, 60_000);
      expect(adopted.metadata.uid).toBe(uid);
    }
  });

  it('unjoin --dry-run deletes nothing; unjoin waits for the Works to go and removes what join made; again it exits 1', async () => {
    const dry = await runCli(['unjoin', ...joinArgs, '--dry-run=client']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^cluster\.cluster\.karmada\.io\/joined1 deleted \(host\) \(dry run\)$/m);
    expect(await present(host, hostPaths)).toEqual(hostPaths);
    const wrongVerb = await runCli(['unregister', JOINED, '--karmada-config', cluster('host').kubeconfig]);
    expect(wrongVerb.code).toBe(1);
    expect(wrongVerb.stderr).toContain(`cluster ${JOINED} is a Push mode member cluster, please use command \`unjoin\``);

    const r = await runCli(['unjoin', ...joinArgs, '--wait', '90s']);
    // a person is told every few seconds what the Cluster still waits for
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith(`waiting for cluster ${JOINED} to go`))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cluster\.cluster\.karmada\.io\/joined1 deleted \(host\)$/m);
    expect(r.stdout).toContain(`cluster(${JOINED}) is unjoined successfully`);
    // The Works went before the Cluster did: nothing is left of karmada-es-joined1 but a namespace on its way out.
    const works = await host.request('GET', `/apis/work.karmada.io/v1alpha1/namespaces/${ES}/works`).then(
      (l: any) => l.items as any[],
      (e: unknown) => (e instanceof ApiError && e.code === 404 ? [] : Promise.reject(e)),
    );
    expect(works).toEqual([]);
    expect(await get(host, `${CLUSTERS}/${JOINED}`)).toBeUndefined();
    const es = await get(host, `/api/v1/namespaces/${ES}`);
    expect(es === undefined || Boolean(es.metadata.deletionTimestamp)).toBe(true);
    expect(await present(host, hostPaths.slice(1, 3))).toEqual([]);
    expect(await present(member, memberPaths)).toEqual([]);
    // The Works' objects went from the member with them, but what promote's policy preserves on deletion.
    expect(await get(member, `/api/v1/namespaces/${NS}/configmaps/only-joined`)).toBeUndefined();
    expect(await get(member, `/apis/apps/v1/namespaces/${NS}/deployments/adopted`)).toBeTruthy();

    const again = await runCli(['unjoin', ...joinArgs]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no cluster object ${JOINED} found in karmada control plane`);
  });

  it('unregister removes a Pull cluster that register made: its Cluster and agent identity on the host, the agent in the member', async () => {
    // member1 was unjoined above: its id is free for a Pull cluster.
    const PULLED = 'pulled1';
    const memberKc = cluster(MEMBER).kubeconfig;
    const reg = await runCli(['register', '--karmada-kubeconfig', cluster('host').kubeconfig, '--kubeconfig', memberKc, '--cluster-name', PULLED]);
    expect(reg.code, reg.stderr).toBe(0);
    const agentPaths = ['/apis/apps/v1/namespaces/karmada-system/deployments/karmada-agent', '/api/v1/namespaces/karmada-system/secrets/karmada-kubeconfig', '/api/v1/namespaces/karmada-system/serviceaccounts/karmada-agent-sa'];
    const hostAgentPaths = [`${CLUSTERS}/${PULLED}`, `/api/v1/namespaces/karmada-cluster/serviceaccounts/karmada-agent-${PULLED}`, `/apis/coordination.k8s.io/v1/namespaces/karmada-cluster/leases/${PULLED}`];
    expect(await present(member, agentPaths)).toEqual(agentPaths);
    expect(await present(host, hostAgentPaths)).toEqual(hostAgentPaths);

    // the other verbs refuse a Pull cluster and name the right one
    const unjoin = await runCli(['unjoin', PULLED, ...hostKc]);
    expect(unjoin.code).toBe(1);
    expect(unjoin.stderr).toContain('is a Pull mode member cluster, please use command `unregister`');
    const join = await runCli(['join', PULLED, ...hostKc, '--cluster-kubeconfig', memberKc]);
    expect(join.code).toBe(1);
    expect(join.stderr).toContain(`karmada-lite unregister ${PULLED}`);

    const args = [PULLED, '--karmada-config', cluster('host').kubeconfig, '--cluster-kubeconfig', memberKc];
    const dry = await runCli(['unregister', ...args, '--dry-run=client']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^deployment\.apps\/karmada-agent deleted \(member\) \(dry run\)$/m);
    expect(await present(host, hostAgentPaths)).toEqual(hostAgentPaths);

    const r = await runCli(['unregister', ...args, '--wait', '90s']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`cluster(${PULLED}) is unregistered successfully`);
    expect(await present(host, hostAgentPaths)).toEqual([]);
    expect(await present(member, agentPaths)).toEqual([]);
    // -n's namespace may hold other things: it stays
    expect(await get(member, '/api/v1/namespaces/karmada-system')).toBeTruthy();
    // Again: nothing left to remove (what it removed, if it did, is in the message).
    const again = await runCli(['unregister', ...args]);
    expect(again.code, `a second unregister exited ${again.code}: ${again.stdout}${again.stderr}`).toBe(1);
  });

  it("unjoin with the controller down: --wait runs out naming what is left; a controller started meanwhile carries on; --force gives up on the member's copies", async () => {
    expect(await runCli(['join', ...joinArgs])).toMatchObject({ code: 0 });
    await waitFor(`${JOINED} Ready again`, async () => (conditionOf(await get(host, `${CLUSTERS}/${JOINED}`), 'Ready')?.status === 'True' ? true : undefined), 60_000);
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/verbs-`)}/forced.json`;
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'forced' }, data: { c: '3' } }));
    expect(await runCli(['apply', file, '-n', NS, '-C', JOINED, ...hostKc])).toMatchObject({ code: 0, stderr: '' });
    await waitFor(`forced in ${MEMBER}`, async () => ((await get(member, `/api/v1/namespaces/${NS}/configmaps/forced`)) ? true : undefined), 60_000);

    expect(await stopController(ctrl)).toBe(0);
    ctrl = undefined;
    const timedOut = await runCli(['unjoin', ...joinArgs, '--wait', '2s']);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toMatch(new RegExp(`^error: cluster ${JOINED} is still being deleted after 2s: \\d+ Work\\(s\\) in ${ES} \\(.*forced-.*\\) and the Cluster's finalizers karmada.io/cluster-controller are left\\. .*--force`));
    expect(await present(member, memberPaths)).toEqual(memberPaths);

    // A controller started while the Cluster is being deleted carries on: running unjoin again finishes it,
    // the member's copy deleted by its Work as if the controller had never stopped.
    ctrl = await startController();
    const carriedOn = await runCli(['unjoin', ...joinArgs, '--wait', '90s']);
    expect(carriedOn.code).toBe(0);
    expect(await get(host, `${CLUSTERS}/${JOINED}`)).toBeUndefined();
    expect(await get(member, `/api/v1/namespaces/${NS}/configmaps/forced`)).toBeUndefined();
    expect(await present(member, memberPaths)).toEqual([]);

    // Once more with --force, the controller down again.
    expect(await runCli(['join', ...joinArgs])).toMatchObject({ code: 0 });
    await waitFor(`${JOINED} Ready again`, async () => (conditionOf(await get(host, `${CLUSTERS}/${JOINED}`), 'Ready')?.status === 'True' ? true : undefined), 60_000);
    expect(await runCli(['apply', file, '-n', NS, '-C', JOINED, ...hostKc])).toMatchObject({ code: 0, stderr: '' });
    await waitFor(`forced in ${MEMBER} again`, async () => ((await get(member, `/api/v1/namespaces/${NS}/configmaps/forced`)) ? true : undefined), 60_000);
    expect(await stopController(ctrl)).toBe(0);
    ctrl = undefined;
    expect((await runCli(['unjoin', ...joinArgs, '--wait', '2s'])).code).toBe(1);

    const forced = await runCli(['unjoin', ...joinArgs, '--wait', '2s', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/^forced: removed the finalizers of \d+ Work\(s\) and of the Cluster; the member may keep copies of what they carried$/m);
    expect(await get(host, `${CLUSTERS}/${JOINED}`)).toBeUndefined();
    expect(await present(member, memberPaths)).toEqual([]);
    // nothing deleted the member's copy: it stays, as --help says
    expect(await get(member, `/api/v1/namespaces/${NS}/configmaps/forced`)).toBeTruthy();
    // back as the other tests and afterAll expect it
    ctrl = await startController();
  }, scaled(300_000));
});
