import type { Command } from 'commander';
import { VERSION } from '../../version.js';
import { outputOption, parseOutput, toJson, toYaml } from '../output.js';

/** What `version` reports, in the shape of karmadactl's version.Info where the fields apply. */
export function versionInfo(): Record<string, string> {
  return {
    gitVersion: `v${VERSION}`,
    nodeVersion: process.version,
    platform: `${process.platform}/${process.arch}`,
  };
}

const VERSION_OUTPUTS = ['text', 'json', 'yaml'] as const;

export function registerVersion(program: Command): void {
  program
    .command('version')
    .description('Print the version of karmada-lite and of the Node.js runtime it runs on.')
    .addOption(outputOption(VERSION_OUTPUTS))
    .addHelpText(
      'after',
      `
--version prints the version number alone.

Examples:
  karmada-lite version
  karmada-lite version -o json | jq -r .clientVersion.gitVersion`,
    )
    .action((opts: { output: string }) => {
      const out = parseOutput(opts.output, VERSION_OUTPUTS);
      const info = versionInfo();
      if (out.format === 'json') process.stdout.write(toJson({ clientVersion: info }));
      else if (out.format === 'yaml') process.stdout.write(toYaml({ clientVersion: info }));
      else process.stdout.write(`karmada-lite version ${info.gitVersion} (Node.js ${info.nodeVersion}, ${info.platform})\n`);
    });
}
