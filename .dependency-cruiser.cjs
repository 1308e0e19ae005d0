/**
 * The layer map of src/ (ARCHITECTURE.md "Layers"), checked by dependency-cruiser: `npm run lint:layers`.
 * Bottom to top; a folder may import its own files and folders of lower layers, never a folder of its own
 * layer or above. That also keeps the folders free of cycles. Type-only imports count: a type a lower
 * layer needs belongs down there with it.
 *
 * dependency-cruiser stays on 17.x: 18 requires Node 22, and the project's engine is Node 20.
 */
const LAYERS = [
  ['json'],
  ['api', 'io', 'quantity', 'assets.ts', 'version.ts'],
  ['lua', 'scheduler'],
  ['validation', 'core'],
  ['interpreter'],
  ['runtime'],
  ['store'],
  // The fleet report's model and page (plan -o html, the dashboard): pure, over the plan's results.
  ['report'],
  ['kube', 'webhook', 'simulate'],
  // the aggregated apiserver uses kube's REST client and member credentials; karmada-search mounts on it.
  // The dashboard serves the report's page from the controller's caches (kube's KubeStore).
  ['apiserver', 'dashboard'],
  ['search'],
  ['cli'],
];

/** `src/<name>` as a path pattern: a folder and everything in it, or one top-level file. */
const at = (name) => (name.endsWith('.ts') ? `src/${name.replace('.', '[.]')}$` : `src/${name}/`);
const anyOf = (names) => `^(${names.map(at).join('|')})`;

const layerRules = LAYERS.flatMap((layer, i) => {
  const below = LAYERS.slice(0, i).flat();
  return layer.flatMap((name) => {
    const notBelow = LAYERS.slice(i).flat().filter((n) => n !== name);
    if (notBelow.length === 0) return [];
    return [
      {
        name: `layer-${name.replace('.ts', '')}`,
        severity: 'error',
        comment:
          `src/${name} (layer ${i + 1}) may import only ${below.length ? 'layers below it: ' + below.join(', ') : 'itself'}. ` +
          'Move what it needs down (a JSON helper to src/json/, a shared type to the lowest layer that uses it).',
        from: { path: anyOf([name]) },
        to: { path: anyOf(notBelow) },
      },
    ];
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import dependency-cruiser cannot resolve hides an edge from the layer rules: fix the specifier.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    includeOnly: '^src/',
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no JavaScript API for dependency-cruiser's tsc parser; swc parses the sources and
    // reports type-only imports too.
    parser: 'swc',
    // `.js` specifiers resolve to the `.ts` files beside them, as tsc's NodeNext resolution does.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
