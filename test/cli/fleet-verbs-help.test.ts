// `karmada-lite <verb> --help` of karmadactl's multi-cluster verbs (issue 35) teaches: what it does, the exit
// statuses as kubectl's, and examples that run as written (their flags are the command's own).
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const VERBS = [['join'], ['unjoin'], ['unregister'], ['promote'], ['cordon'], ['uncordon'], ['taint'], ['top', 'clusters'], ['apply']];

describe('--help of the fleet verbs', () => {
  it.each(VERBS.map((v) => [v.join(' '), v]))('%s --help has exit statuses and examples', async (_name, verb) => {
    const r = await runCli([...verb, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const exit = r.stdout.slice(r.stdout.indexOf('\nExit status: 0 ')).split('\n\n')[0]!;
    expect(exit).toMatch(/[ \n]1 /);
    expect(exit).toMatch(/[ \n]2 usage error/);
    const examples = r.stdout.slice(r.stdout.indexOf('\nExamples:\n'));
    const lines = examples.split('\n').filter((l) => l.startsWith('  karmada-lite '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    // every flag an example uses is one --help lists
    for (const line of lines) {
      for (const flag of line.replace(/#.*$/, '').match(/(?<=\s)--?[a-zA-Z][\w-]*/g) ?? []) expect({ line, flag, listed: r.stdout.includes(`${flag} `) || r.stdout.includes(`${flag},`) || r.stdout.includes(`${flag}[`) || r.stdout.includes(`${flag}=`) }).toMatchObject({ listed: true });
    }
  });

  it('the writing verbs take --dry-run and -o as kubectl', async () => {
    for (const verb of VERBS.filter((v) => v[0] !== 'top')) {
      const r = await runCli([...verb, '--help']);
      expect(r.stdout).toContain('--dry-run [strategy]');
      expect(r.stdout).toContain('-o, --output');
    }
  });
});
