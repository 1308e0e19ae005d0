#!/usr/bin/env node
// Type casts (`x as T`, `<T>x`; `as const` is not a cast) in the decision code, src/core and src/scheduler,
// against the allowance per file in scripts/casts-allowed.json. A cast says "trust me" where the generated
// types should say what an object is (ARCHITECTURE.md); the allowance only goes down.
//
//   node scripts/casts.mjs            # CI: exit 1 when a file has more casts than allowed, or a file not listed has any
//   node scripts/casts.mjs --update   # after removing casts: lower the allowances to the counts (never raises one)
//   node scripts/casts.mjs --list F   # where the casts of one file are, line by line
//
// The allowance started (2026-12-02) as the count each file had; issue #16 takes it to the boundaries,
// where the store narrows what it returns.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from '@swc/core';

const root = process.env.KARMADA_LITE_CASTS_ROOT ? path.resolve(process.env.KARMADA_LITE_CASTS_ROOT) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIRS = ['src/core', 'src/scheduler'];
const allowedFile = path.join(root, 'scripts', 'casts-allowed.json');

const tsFiles = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? tsFiles(p) : n.endsWith('.ts') ? [p] : [];
    });

/** The byte offsets of every cast in a TypeScript source. */
function casts(source) {
  const ast = parseSync(source, { syntax: 'typescript', target: 'es2022' });
  // swc's positions run on across parses, and the module's span begins at its first token, after the
  // leading comments: the base is that token's position less its offset in this file.
  const lead = Buffer.byteLength(/^(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/.exec(source)[0]);
  const base = ast.span.start - lead;
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    if (node.type === 'TsAsExpression' || node.type === 'TsTypeAssertion') found.push(node.span.start - base);
    for (const k of Object.keys(node)) if (k !== 'span') walk(node[k]);
  };
  walk(ast);
  return found;
}

const lineOf = (source, offset) => Buffer.from(source).subarray(0, offset).toString('utf8').split('\n').length;

function counts() {
  const out = {};
  for (const dir of DIRS) {
    for (const file of tsFiles(path.join(root, dir))) {
      const n = casts(readFileSync(file, 'utf8')).length;
      if (n) out[path.relative(root, file)] = n;
    }
  }
  return out;
}

const args = process.argv.slice(2);
if (args[0] === '--list') {
  const file = args[1];
  if (!file) {
    process.stderr.write('usage: node scripts/casts.mjs --list src/core/binding.ts\n');
    process.exit(2);
  }
  const source = readFileSync(path.resolve(root, file), 'utf8');
  for (const off of casts(source)) {
    const line = lineOf(source, off);
    process.stdout.write(`${file}:${line}: ${source.split('\n')[line - 1].trim()}\n`);
  }
  process.exit(0);
}
if (args.length && args[0] !== '--update') {
  process.stderr.write(`unknown argument ${args[0]}; usage: node scripts/casts.mjs [--update | --list FILE]\n`);
  process.exit(2);
}

const allowed = JSON.parse(readFileSync(allowedFile, 'utf8'));
const now = counts();
const over = Object.entries(now).filter(([f, n]) => n > (allowed[f] ?? 0));
if (args[0] === '--update') {
  const lowered = Object.fromEntries(Object.entries(allowed).flatMap(([f, n]) => (now[f] ? [[f, Math.min(n, now[f])]] : [])));
  writeFileSync(allowedFile, JSON.stringify(lowered, null, 2) + '\n');
  process.stderr.write(`scripts/casts-allowed.json: ${Object.values(lowered).reduce((a, b) => a + b, 0)} casts allowed in ${Object.keys(lowered).length} files\n`);
}
for (const [f, n] of over) {
  process.stderr.write(`${f}: ${n} casts, ${allowed[f] ?? 0} allowed. Use the generated types (src/api/generated) or narrow where the store returns the object; node scripts/casts.mjs --list ${f} shows where they are\n`);
}
if (over.length) process.exit(1);
const total = Object.values(now).reduce((a, b) => a + b, 0);
const spare = Object.entries(allowed).filter(([f, n]) => (now[f] ?? 0) < n);
process.stderr.write(`casts in ${DIRS.join(' and ')}: ${total}, none over the allowance${spare.length ? ` (${spare.length} file(s) now under it: node scripts/casts.mjs --update lowers it)` : ''}\n`);
