// kubectl's taint specs and karmadactl's taint/cordon rules on a Cluster's spec.taints, pure.
import { describe, expect, it } from 'vitest';
import { cordonTaints, parseTaints, splitTaintArgs, taintString, updateTaints, type Taint } from '../../src/cli/cluster-taints.js';
import { taintRequest } from '../../src/cli/commands/taint.js';
import { runCli } from './run-cli.js';

const t = (key: string, effect: Taint['effect'], value?: string): Taint => ({ key, effect, ...(value ? { value } : {}) });

describe('taint specs as kubectl parses them', () => {
  it('reads key=value:Effect, key:Effect, key:Effect- and key-', () => {
    expect(parseTaints(['dedicated=special-user:NoSchedule', 'bar:NoExecute', 'old:NoSchedule-', 'gone-'])).toEqual({
      add: [t('dedicated', 'NoSchedule', 'special-user'), t('bar', 'NoExecute')],
      remove: [{ key: 'old', effect: 'NoSchedule' }, { key: 'gone' }],
    });
    expect(parseTaints(['example.com/my-app=x:NoSchedule']).add).toEqual([t('example.com/my-app', 'NoSchedule', 'x')]);
  });

  it('refuses what kubectl or the Cluster API refuses, in their words', () => {
    expect(() => parseTaints(['foo'])).toThrow('invalid taint spec: foo');
    expect(() => parseTaints(['a=b=c:NoSchedule'])).toThrow('invalid taint spec: a=b=c:NoSchedule');
    expect(() => parseTaints(['a:b:NoSchedule'])).toThrow('invalid taint spec: a:b:NoSchedule');
    expect(() => parseTaints(['k=v:PreferNoSchedule'])).toThrow('invalid taint effect: PreferNoSchedule, unsupported taint effect: a Cluster takes NoSchedule or NoExecute');
    expect(() => parseTaints(['k=v:Sometimes'])).toThrow('invalid taint effect: Sometimes');
    expect(() => parseTaints(['-bad=v:NoSchedule'])).toThrow(/^invalid taint spec: -bad=v:NoSchedule, name part must consist of alphanumeric/);
    expect(() => parseTaints(['k=not valid:NoSchedule'])).toThrow(/^invalid taint spec: k=not valid:NoSchedule, a valid label must be/);
    expect(() => parseTaints(['k=a:NoSchedule', 'k=b:NoSchedule'])).toThrow('duplicated taints with the same key and effect: k=b:NoSchedule');
    expect(() => parseTaints(['k=a:NoSchedule', 'k-'])).toThrow('can not both modify and remove the following taint(s) in the same command: {"k":""}');
    expect(() => parseTaints(['k=a:NoSchedule', 'k:NoSchedule-'])).toThrow('{"k":"NoSchedule"}');
    // same key, other effect: no conflict
    expect(parseTaints(['k=a:NoSchedule', 'k:NoExecute-']).remove).toEqual([{ key: 'k', effect: 'NoExecute' }]);
  });

  it('splits names from specs as karmadactl does, names first', () => {
    expect(splitTaintArgs(['clusters', 'm1', 'm2', 'k=v:NoSchedule', 'j-'])).toEqual({ resources: ['clusters', 'm1', 'm2'], specs: ['k=v:NoSchedule', 'j-'] });
    expect(() => splitTaintArgs(['clusters', 'k=v:NoSchedule', 'm1'])).toThrow('all resources must be specified before taint changes: m1');
    expect(taintString({ key: 'k', value: 'v', effect: 'NoSchedule' })).toBe('k=v:NoSchedule');
    expect(taintString({ key: 'k' })).toBe('k');
  });

  it('the command takes only clusters, at least one name and one change (usage errors)', async () => {
    expect(taintRequest('clusters', ['m1', 'm2', 'k=v:NoSchedule']).clusters).toEqual(['m1', 'm2']);
    expect(() => taintRequest('nodes', ['n1', 'k=v:NoSchedule'])).toThrow('invalid resource type nodes, only ["cluster" "clusters"] are supported');
    expect(() => taintRequest('clusters', ['k=v:NoSchedule'])).toThrow('at least one resource name must be specified');
    expect(() => taintRequest('clusters', ['m1'])).toThrow('at least one taint update is required');
    for (const args of [['taint', 'nodes', 'n1', 'k=v:NoSchedule'], ['taint', 'clusters', 'm1', 'k=v:PreferNoSchedule'], ['taint', 'clusters', 'm1']]) {
      const r = await runCli([...args, '--kubeconfig', '/nonexistent']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
    }
  });
});

describe('the new taints, and karmadactl\'s word for the change', () => {
  const current = [t('a', 'NoSchedule', '1'), t('b', 'NoExecute')];

  it('adds before the old ones: tainted', () => {
    expect(updateTaints('m1', current, parseTaints(['c=3:NoSchedule']), false)).toEqual({ taints: [t('c', 'NoSchedule', '3'), ...current], verb: 'tainted' });
  });

  it('removes by key and effect, or every effect of a key: untainted', () => {
    expect(updateTaints('m1', current, parseTaints(['a:NoSchedule-']), false)).toEqual({ taints: [t('b', 'NoExecute')], verb: 'untainted' });
    expect(updateTaints('m1', [...current, t('a', 'NoExecute')], parseTaints(['a-']), false)).toEqual({ taints: [t('b', 'NoExecute')], verb: 'untainted' });
  });

  it('adding and removing at once, or --overwrite, is modified', () => {
    expect(updateTaints('m1', current, parseTaints(['c:NoSchedule', 'b:NoExecute-']), false)).toEqual({ taints: [t('c', 'NoSchedule'), t('a', 'NoSchedule', '1')], verb: 'modified' });
    expect(updateTaints('m1', current, parseTaints(['a=2:NoSchedule']), true)).toEqual({ taints: [t('a', 'NoSchedule', '2'), t('b', 'NoExecute')], verb: 'modified' });
  });

  it('refuses to add a taint the cluster has without --overwrite, and to remove one it lacks', () => {
    expect(() => updateTaints('m1', current, parseTaints(['a=2:NoSchedule']), false)).toThrow('cluster m1 already has a taint(s) with same effect(s) and --overwrite is false');
    expect(() => updateTaints('m1', current, parseTaints(['x:NoSchedule-']), false)).toThrow('taint "x:NoSchedule" not found');
    expect(() => updateTaints('m1', current, parseTaints(['x-', 'y-']), false)).toThrow('[taint "x" not found, taint "y" not found]');
  });
});

describe('cordon is the taint cluster.karmada.io/unschedulable:NoSchedule', () => {
  const unschedulable = t('cluster.karmada.io/unschedulable', 'NoSchedule');

  it('cordon adds it after the others; again is nothing to do', () => {
    expect(cordonTaints([t('a', 'NoExecute')], true)).toEqual([t('a', 'NoExecute'), unschedulable]);
    expect(cordonTaints([unschedulable], true)).toBeUndefined();
  });

  it('uncordon removes only it; without it nothing to do', () => {
    expect(cordonTaints([t('a', 'NoExecute'), unschedulable, t('b', 'NoSchedule')], false)).toEqual([t('a', 'NoExecute'), t('b', 'NoSchedule')]);
    // the same key with another effect is not the cordon taint
    expect(cordonTaints([t('cluster.karmada.io/unschedulable', 'NoExecute')], false)).toBeUndefined();
  });
});
