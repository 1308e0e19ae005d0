// `completion bash|zsh|fish`: scripts generated from the command tree, checked by running the bash one in
// bash the way bash's programmable completion calls it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { completionScript } from '../../src/cli/commands/completion.js';
import { runCli } from './run-cli.js';
import { startFake } from './fleet-fake.js';

const dir = mkdtempSync(join(tmpdir(), 'kl-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'policy.yaml'), '');
writeFileSync(join(dir, 'fleet.yaml'), '');

/** What bash offers for the words typed so far (the last one is being completed); `before` runs first (a stub binary). */
function complete(script: string, words: string[], before = ''): string[] {
  const file = join(dir, 'completion.bash');
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['-c', `${before} source ${file}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _karmada_lite; printf '%s\\n' "\${COMPREPLY[@]}"`], { cwd: dir, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

// The whole tree, as `completion` itself builds it.
const fullProgram = await buildProgram(['completion']);

describe('completion bash', () => {
  const script = completionScript(fullProgram, 'bash');

  it('completes subcommands', () => {
    expect(complete(script, ['karmada-lite', 'c'])).toEqual(['completion', 'controller', 'cordon', 'crds']);
    expect(complete(script, ['karmada-lite', 'interpret', 't'])).toEqual(['test']);
  });

  it('completes the flags of the command typed, with the global -v', () => {
    const flags = complete(script, ['karmada-lite', 'crds', '-']);
    expect(flags).toEqual(expect.arrayContaining(['-o', '--output', '-v', '--v', '-h', '--help']));
    expect(flags).not.toContain('--kubeconfig');
    expect(complete(script, ['karmada-lite', 'controller', '--kubec'])).toEqual(['--kubeconfig']);
  });

  it('completes the values of -o for the command typed', () => {
    expect(complete(script, ['karmada-lite', 'crds', '-o', ''])).toEqual(['custom-columns=', 'json', 'jsonpath=', 'name', 'wide', 'yaml']);
    expect(complete(script, ['karmada-lite', 'version', '--output', 'j'])).toEqual(['json']);
    // --output=j as bash splits it at the =.
    expect(complete(script, ['karmada-lite', 'version', '--output', '=', 'y'])).toEqual(['yaml']);
    expect(complete(script, ['karmada-lite', 'version', '--output', '='])).toEqual(['json', 'text', 'yaml']);
  });

  it('completes file names for path flags and file arguments, skipping flag values when finding the command', () => {
    expect(complete(script, ['karmada-lite', 'plan', '--clusters', 'f'])).toEqual(['fleet.yaml']);
    expect(complete(script, ['karmada-lite', 'validate', 'p'])).toEqual(['policy.yaml']);
    // `-o plan` is a value, not the plan command: validate's arguments are still completed.
    expect(complete(script, ['karmada-lite', 'validate', '-o', 'plan', 'p'])).toEqual(['policy.yaml']);
  });

  it('the fleet commands complete the host\'s cluster names and resource types by asking the binary, scopes from karmadactl\'s list, never file names', () => {
    // a stand-in for the binary: records how it was asked, answers as `__complete` would
    const calls = join(dir, 'calls');
    const stub = `karmada-lite() { echo "$*" >> ${calls}; if [[ $2 == clusters ]]; then printf 'member1\\nmember2\\n'; else printf 'deployments.apps\\npods\\nclusters.cluster.karmada.io\\n'; fi; };`;
    writeFileSync(calls, '');
    expect(complete(script, ['karmada-lite', 'get', 'deploy', '--kubeconfig', 'k', '-C', 'm'], stub)).toEqual(['member1', 'member2']);
    expect(readFileSync(calls, 'utf8')).toBe('__complete clusters -- get deploy --kubeconfig k -C\n');
    expect(complete(script, ['karmada-lite', 'logs', 'web-1', '--cluster', ''], stub)).toEqual(['member1', 'member2']);
    expect(complete(script, ['karmada-lite', 'get', ''], stub)).toEqual(['clusters.cluster.karmada.io', 'deployments.apps', 'pods']);
    expect(complete(script, ['karmada-lite', 'describe', '-n', 'shop', 'c'], stub)).toEqual(['clusters.cluster.karmada.io']);
    // the second argument is a name: nothing to offer, and never the files of the directory
    expect(complete(script, ['karmada-lite', 'describe', 'deploy', 'f'], stub)).toEqual([]);
    expect(complete(script, ['karmada-lite', 'logs', 'f'], stub)).toEqual([]);
    expect(complete(script, ['karmada-lite', 'get', 'deploy', '-s', ''], stub)).toEqual(['all', 'karmada', 'members']);
    // plan --clusters is a file still
    expect(complete(script, ['karmada-lite', 'plan', '--clusters', 'f'], stub)).toEqual(['fleet.yaml']);
  });

  it('__complete answers from the host: its Clusters and its resource types', async () => {
    const fake = await startFake({ deployments: [], karmada: true }, { member1: { deployments: [] }, member2: { deployments: [] } });
    try {
      expect(await runCli(['__complete', 'clusters', '--', 'get', '--kubeconfig', fake.kubeconfig, '-C'])).toEqual({ code: 0, stdout: 'member1\nmember2\n', stderr: '' });
      const kinds = (await runCli(['__complete', 'kinds', '--', 'get', `--kubeconfig=${fake.kubeconfig}`])).stdout.split('\n');
      expect(kinds).toEqual(expect.arrayContaining(['clusters.cluster.karmada.io', 'deployments.apps', 'pods']));
      // no host: nothing, quietly
      expect(await runCli(['__complete', 'clusters', '--', 'get', '--kubeconfig', join(dir, 'none')])).toEqual({ code: 0, stdout: '', stderr: '' });
    } finally {
      await fake.close();
    }
  });

  it('follows the command tree: a new command or flag completes with no script edited', () => {
    const program = new Command('karmada-lite');
    program.command('rollout').option('--to <cluster>', 'where').command('undo');
    const s = completionScript(program, 'bash');
    expect(complete(s, ['karmada-lite', 'r'])).toEqual(['rollout']);
    expect(complete(s, ['karmada-lite', 'rollout', ''])).toEqual(['help', 'undo']);
    expect(complete(s, ['karmada-lite', 'rollout', '--'])).toEqual(['--help', '--to']);
  });
});

describe('completion zsh and fish', () => {
  it('zsh runs the same completion through bashcompinit', () => {
    const zsh = completionScript(fullProgram, 'zsh');
    expect(zsh.split('\n')[0]).toBe('#compdef karmada-lite');
    expect(zsh).toContain('bashcompinit');
    expect(zsh).toContain('complete -F _karmada_lite karmada-lite');
  });

  it('fish lists every subcommand and the -o values per command', () => {
    const fish = completionScript(fullProgram, 'fish');
    for (const sub of ['validate', 'plan', 'interpret', 'crds', 'controller', 'webhook', 'version', 'completion']) {
      expect(fish).toMatch(new RegExp(`-a '${sub}' -d `));
    }
    expect(fish).toContain("-n '__fish_seen_subcommand_from crds' -s o -l output -x -a 'yaml json name wide jsonpath= custom-columns='");
    expect(fish).toContain("-n '__fish_seen_subcommand_from interpret; and __fish_seen_subcommand_from test' -s q -l quiet");
  });

  it('the command prints the script; an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -F _karmada_lite karmada-lite');
    expect((await runCli(['completion', 'powershell'])).code).toBe(2);
  });
});
