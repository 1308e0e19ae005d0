import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addMutationFlags, dryRunQuery, parseDryRun, parseMutationOutput, printMutation } from '../../src/cli/mutation.js';

const cluster = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' } };

describe('the flags of writing verbs', () => {
  it('reads --dry-run as kubectl: bare is client, a value is checked', () => {
    const parse = (...argv: string[]) => addMutationFlags(new Command('x').exitOverride()).parse(argv, { from: 'user' }).opts<{ dryRun: string | boolean }>().dryRun;
    expect(parseDryRun(parse())).toBe('none');
    expect(parseDryRun(parse('--dry-run'))).toBe('client');
    expect(parseDryRun(parse('--dry-run=server'))).toBe('server');
    expect(() => parseDryRun(parse('--dry-run=maybe'))).toThrow('--dry-run must be "none", "server", or "client", got "maybe"');
    expect(dryRunQuery('server')).toEqual({ dryRun: 'All' });
    expect(dryRunQuery('client')).toEqual({});
  });

  it('prints one line per object with its verb, or the objects themselves', () => {
    const changes = [{ object: cluster, verb: 'cordoned' }];
    expect(printMutation(changes, parseMutationOutput('text'), 'none')).toBe('cluster.cluster.karmada.io/member1 cordoned\n');
    expect(printMutation(changes, parseMutationOutput('text'), 'client')).toBe('cluster.cluster.karmada.io/member1 cordoned (dry run)\n');
    expect(printMutation(changes, parseMutationOutput('text'), 'server')).toBe('cluster.cluster.karmada.io/member1 cordoned (server dry run)\n');
    expect(printMutation(changes, parseMutationOutput('yaml'), 'client')).toContain('kind: Cluster');
    expect(printMutation(changes, parseMutationOutput('name'), 'none')).toBe('cluster.cluster.karmada.io/member1\n');
    expect(() => parseMutationOutput('wide')).toThrow('--output must be one of text, json, yaml, name');
  });
});
