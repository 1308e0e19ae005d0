// `completion bash|zsh|fish`: scripts generated from the command tree, checked by running the bash one in
// bash the way bash's programmable completion calls it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { completionScript } from '../../src/cli/commands/completion.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kl-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'policy.yaml'), '');
writeFileSync(join(dir, 'fleet.yaml'), '');

/** What bash offers for the words typed so far (the last one is being completed). */
function complete(script: string, words: string[]): string[] {
  const file = join(dir, 'completion.bash');
  writeFileSync(file, script);
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync('bash', ['-c', `source ${file}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _karmada_lite; printf '%s\\n' "\${COMPREPLY[@]}"`], { cwd: dir, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

// The whole tree, as `completion` itself builds it.
const fullProgram = await buildProgram(['completion']);

describe('completion bash', () => {
  const script = completionScript(fullProgram, 'bash');

  it('completes subcommands', () => {
    expect(complete(script, ['karmada-lite', 'c'])).toEqual(['completion', 'controller', 'crds']);
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
