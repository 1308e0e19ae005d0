#!/usr/bin/env node
// `npm run lint:layers`: the layer rules of .dependency-cruiser.cjs (ARCHITECTURE.md "Layers") over src/,
// through dependency-cruiser's API. Its CLI (depcruise) runs the same file on Node >= 22 but refuses Node
// 20, the project's engine; the API does not check. Prints each upward import with the rule's advice and
// exits non-zero when there is one.
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const result = await cruise(['src'], { ...options, outputType: 'err-long' }, {}, { tsConfig: extractTSConfig(options.tsConfig.fileName) });
process.stdout.write(result.output);
process.exitCode = result.exitCode;
