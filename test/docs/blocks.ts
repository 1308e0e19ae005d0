/**
 * The runnable blocks of README.md and docs/*.md, and a runner for them: the convention is written down in
 * docs/development.md ("Commands in these docs are tested"). Shared by test/docs/docs-commands.test.ts
 * (offline blocks) and test/integration/docs-commands.test.ts (cluster blocks).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export type BlockKind = 'offline' | 'cluster' | 'skip';

export interface DocBlock {
  /** Relative to the repository, with the 1-based line of the opening fence: `docs/x.md:12`. */
  where: string;
  kind: BlockKind;
  /** Why a skipped block cannot run. */
  reason?: string;
  /** Placeholders of the docs and what the test runs instead, in the marker's order. */
  substitutions: Array<[placeholder: string, replacement: string]>;
  /** The commands as the docs show them (the fence's indentation removed). */
  body: string;
  /** With `output: the block below`: the next fenced block, which the commands' stdout must contain. */
  expectedOutput?: string;
}

/** README.md and every page of docs/. */
export function docFiles(): string[] {
  const docs = readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** The languages of fenced blocks that hold commands to run: each needs a marker. */
const SHELL = new Set(['sh', 'bash', 'shell']);
const MARKER = /^<!--\s*test:\s*(.*?)\s*-->$/;
const FENCE = /^(\s*)(`{3,})\s*([\w-]*)\s*$/;

interface Fence {
  line: number;
  indent: string;
  lang: string;
  body: string;
}

function fences(lines: readonly string[]): Fence[] {
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent, ticks, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]!);
      if (close && close[2]!.length >= ticks!.length && close[3] === '') break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    out.push({ line: i + 1, indent: indent!, lang: lang!, body: body.join('\n') });
    i = j;
  }
  return out;
}

/** The marker's kind and notes: `offline`, `cluster; A = B, C = D; a note`, `skip: why`. */
function parseMarker(text: string, where: string): Omit<DocBlock, 'where' | 'body'> | string {
  const skip = /^skip(?::\s*(.*))?$/s.exec(text);
  if (skip) {
    const reason = skip[1]?.trim();
    return reason ? { kind: 'skip', reason, substitutions: [] } : `${where}: a skipped block needs its reason: <!-- test: skip: WHY -->`;
  }
  const [kind, ...notes] = text.split(';').map((s) => s.trim());
  if (kind !== 'offline' && kind !== 'cluster') return `${where}: unknown marker "${text}": offline, cluster or skip: REASON`;
  const block: Omit<DocBlock, 'where' | 'body'> = { kind, substitutions: [] };
  for (const note of notes) {
    if (note === 'output: the block below') {
      block.expectedOutput = '';
      continue;
    }
    const pairs = note.split(/,\s+/).map((p) => /^(.+?) = (.+)$/.exec(p));
    if (pairs.every((m) => m !== null)) {
      for (const m of pairs) block.substitutions.push([unquote(m![1]!), unquote(m![2]!)]);
    }
    // any other note is for the reader
  }
  return block;
}

const unquote = (s: string) => s.trim().replace(/^`(.*)`$/, '$1');

export interface Extracted {
  blocks: DocBlock[];
  /** Each a sentence naming the file and line: a shell block without a marker, a marker without a block, ... */
  problems: string[];
}

/**
 * Every marked block of one file. `unmarked` lists the opening-fence lines of shell blocks allowed to go
 * without a marker (the README's set-up block, which CI reads as it is).
 */
export function extractBlocks(file: string, unmarked: readonly number[] = []): Extracted {
  const lines = readFileSync(path.join(repoRoot, file), 'utf8').split('\n');
  const all = fences(lines);
  const blocks: DocBlock[] = [];
  const problems: string[] = [];
  const fenceAt = new Map(all.map((f, i) => [f.line, i]));
  lines.forEach((raw, i) => {
    const m = MARKER.exec(raw.trim());
    if (!m) return;
    const where = `${file}:${i + 1}`;
    // the block is on the next non-blank line
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    const index = fenceAt.get(j + 1);
    if (index === undefined) {
      problems.push(`${where}: a test marker with no fenced block after it`);
      return;
    }
    const fence = all[index]!;
    const parsed = parseMarker(m[1]!, where);
    if (typeof parsed === 'string') {
      problems.push(parsed);
      return;
    }
    const block: DocBlock = { where: `${file}:${fence.line}`, body: fence.body, ...parsed };
    if (block.expectedOutput !== undefined) {
      const next = all[index + 1];
      if (!next) problems.push(`${where}: "output: the block below" but no block follows`);
      else block.expectedOutput = next.body;
    }
    blocks.push(block);
  });
  const marked = new Set(blocks.map((b) => b.where));
  for (const f of all) {
    if (!SHELL.has(f.lang) || marked.has(`${file}:${f.line}`) || unmarked.includes(f.line)) continue;
    problems.push(`${file}:${f.line}: a \`${f.lang}\` block without a test marker: put <!-- test: offline -->, <!-- test: cluster --> or <!-- test: skip: WHY --> on the line before it (docs/development.md)`);
  }
  return { blocks, problems };
}

/**
 * The README's set-up block (the first fenced block under "## Set-up: the two commands"), which CI reads as it
 * is and so carries no marker: its first command, offline, and the sample of its output that follows it.
 */
export function setupBlock(): { line: number; command: string; expectedOutput: string } {
  const lines = readFileSync(path.join(repoRoot, 'README.md'), 'utf8').split('\n');
  const heading = lines.indexOf('## Set-up: the two commands');
  if (heading < 0) throw new Error('README.md has no "## Set-up: the two commands" section: CI reads its commands');
  const [first, sample] = fences(lines.slice(heading)).map((f) => ({ ...f, line: f.line + heading }));
  const m = /^npm ci && (npx karmada-lite [^#]*?)\s*(#.*)?$/.exec(first!.body.split('\n')[0]!);
  if (!m) throw new Error(`README.md:${first!.line}: the first set-up command is no longer \`npm ci && npx karmada-lite ...\``);
  return { line: first!.line, command: m[1]!, expectedOutput: sample!.body };
}

/** The script a block runs: its placeholders replaced, `npx karmada-lite` the checkout's CLI on PATH. */
export function scriptOf(block: DocBlock, extra: ReadonlyArray<[string, string]> = []): string {
  let body = block.body;
  for (const [from, to] of [...block.substitutions, ...extra]) body = body.split(from).join(to);
  body = body.replace(/\bnpx karmada-lite\b/g, 'karmada-lite');
  return `set -euo pipefail\n${body}\n`;
}

/**
 * A scratch folder that looks like the checkout (each top-level entry a symlink, so `examples/`, `deploy/`,
 * `node_modules/` resolve) and where the commands' own files (`> plan.html`) land, with `karmada-lite` on PATH.
 */
export function scratchCheckout(): { dir: string; env: NodeJS.ProcessEnv; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'karmada-lite-docs-'));
  const work = path.join(dir, 'checkout');
  const bin = path.join(dir, 'bin');
  mkdirSync(work);
  mkdirSync(bin);
  for (const entry of readdirSync(repoRoot)) {
    if (entry === '.git') continue;
    symlinkSync(path.join(repoRoot, entry), path.join(work, entry));
  }
  const shim = path.join(bin, 'karmada-lite');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'bin', 'karmada-lite.mjs')}" "$@"\n`);
  chmodSync(shim, 0o755);
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  return { dir: work, env, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The lines of `expected` that are not in `actual`, in order: each must appear after the one before it,
 * a `...` line stands for any number of lines, trailing blanks are ignored.
 */
export function missingLines(expected: string, actual: string): string[] {
  const have = actual.split('\n').map((l) => l.trimEnd());
  const missing: string[] = [];
  let at = 0;
  for (const raw of expected.split('\n')) {
    const line = raw.trimEnd();
    if (line === '' || line === '...') continue;
    const found = have.indexOf(line, at);
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  return missing;
}
