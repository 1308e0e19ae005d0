import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../src/cli/main.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The modules a command's registration pulls in statically: what its run loads before it does anything. */
async function staticInputs(entry: string): Promise<string[]> {
  const r = await build({ absWorkingDir: root, entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', write: false, metafile: true, logLevel: 'silent', splitting: true, outdir: '/tmp/unused' });
  // The entry chunk and the chunks it imports statically: what dynamic import() brings lives in other chunks,
  // loaded when an action asks. A module both sides need goes to a shared chunk the entry imports statically.
  const outputs = r.metafile!.outputs;
  // Each dynamic import() target is an entry point of its own chunk too: the command's is the one named so.
  const [entryChunk] = Object.entries(outputs).find(([, o]) => o.entryPoint === entry)!;
  const seen = new Set<string>();
  const visit = (chunk: string) => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    for (const i of outputs[chunk]!.imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(entryChunk);
  return [...seen].flatMap((c) => Object.keys(outputs[c]!.inputs));
}

describe('commands load lazily', () => {
  it('a run loads the module of the command it names, every module only for help and completion', () => {
    expect(commandsFor(['webhook', '--cert-file', 'x']).map(([n]) => n)).toEqual(['webhook']);
    expect(commandsFor(['-v', '4', 'plan', '-f', 'x']).map(([n]) => n)).toEqual(['plan']);
    expect(commandsFor(['--version'])).toEqual([]);
    expect(commandsFor(['--help'])).toBe(COMMANDS);
    expect(commandsFor(['completion', 'bash'])).toBe(COMMANDS);
    expect(commandsFor(['wbhook'])).toBe(COMMANDS);
  });

  it('webhook and validate load neither client-node nor the controller', async () => {
    for (const entry of ['src/cli/commands/webhook.ts', 'src/cli/commands/validate.ts']) {
      const inputs = await staticInputs(entry);
      expect(inputs.some((i) => i.includes('src/cli/commands/'))).toBe(true);
      expect(inputs.filter((i) => i.includes('@kubernetes/client-node') || i.includes('src/kube/controller'))).toEqual([]);
    }
  });

  it('webhook loads neither the YAML parser nor the core nor the scheduler: a review needs none of them', async () => {
    const inputs = [...(await staticInputs('src/cli/main.ts')), ...(await staticInputs('src/cli/commands/webhook.ts'))];
    expect(inputs.filter((i) => i.includes('node_modules/yaml/') || i.includes('src/io/documents.ts') || i.includes('src/core/') || i.includes('src/scheduler/'))).toEqual([]);
  });

  it('webhook loads the Lua VM (fengari) only when a ResourceInterpreterCustomization is reviewed', async () => {
    const lua = (inputs: string[]) => inputs.filter((i) => i.includes('node_modules/fengari') || i.includes('src/lua/') || i.endsWith('src/validation/lua-compile.ts'));
    expect(lua(await staticInputs('src/cli/commands/webhook.ts'))).toEqual([]);
    // The check sees fengari where it is static: validate compiles every RIC it lints, so it loads it at start.
    const validate = await staticInputs('src/cli/commands/validate.ts');
    expect(lua(validate).some((i) => i.includes('node_modules/fengari'))).toBe(true);
    // The compiling path (luaparse, src/lua/compiled/) only for a sandbox made with engine 'auto' (loadCompiledLua).
    expect(validate.filter((i) => i.includes('node_modules/luaparse') || i.includes('src/lua/compiled/'))).toEqual([]);
  });
});
