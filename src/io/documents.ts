import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, normalize } from 'node:path';
import { isCollection, parse, parseAllDocuments, visit } from 'yaml';
import { indentQuotedContinuations } from './yaml-quoted.js';
import { InputError } from './input-error.js';

/** One parsed document with where it came from, so every error can name the file and the index. */
export interface SourceDocument {
  file: string;
  index: number;
  /** The position in the `items` of a `kind: List` (or `*List`) document this object was unwrapped from. */
  item?: number;
  object: Record<string, unknown>;
}

/** A file or document left out, and why. */
export interface SkippedInput {
  file: string;
  index?: number;
  reason: string;
  /** Skipped because a flag asked for it (--skip-kinds, --ignore-filename-pattern): no notice is printed. */
  requested?: boolean;
}

export interface ReadOptions {
  stdin?: () => string;
  /** kubeconform's -skip: kinds (`ConfigMap`) or apiVersion/kind (`apps/v1/Deployment`) left out. */
  skipKinds?: readonly string[];
  /** kubeconform's -ignore-filename-pattern: regular expressions; a path one matches is not read. */
  ignoreFilenamePatterns?: readonly string[];
  /**
   * The input is Kubernetes objects (the default): documents with neither apiVersion nor kind, and the
   * non-manifest files of real repositories (kustomization.yaml, Helm charts and templates), are skipped
   * with a notice. False for inputs of other shapes (plan --status entries, AggregatedStatusItems).
   */
  objects?: boolean;
  /** Where notices of skipped input go; standard error by default. */
  notice?: (message: string) => void;
}

export interface Input {
  documents: SourceDocument[];
  skipped: SkippedInput[];
}

/** Raised for input that cannot be read at all (missing file, bad YAML): callers map it to exit code 2. */
export { InputError };

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const HELM_FILE = /^(Chart\.(ya?ml|lock)|values([.-].*)?\.(ya?ml|json))$/;
const KUSTOMIZE_FILE = /^kustomization\.ya?ml$/;

function compilePatterns(patterns: readonly string[] = []): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(p);
    } catch (err) {
      throw new InputError(`--ignore-filename-pattern: ${JSON.stringify(p)} is not a regular expression: ${(err as Error).message}`);
    }
  });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Why a file or folder of a repository is not manifests, or undefined when it may be. */
function notManifests(path: string, isDir: boolean): string | undefined {
  const name = basename(path);
  if (isDir) return isFile(join(path, 'Chart.yaml')) ? `a Helm chart, not manifests; render it first (helm template ${path}) and pass the output with -f -` : undefined;
  if (KUSTOMIZE_FILE.test(name)) return `a kustomize configuration, not a manifest; render it first (kubectl kustomize ${dirname(path)}) and pass the output with -f -`;
  if (HELM_FILE.test(name)) return 'a Helm chart file (Chart.yaml, values), not a manifest';
  return undefined;
}

interface Walked {
  files: string[];
  skipped: SkippedInput[];
  /** Files a kustomization names as patches (partial objects), with the kustomization that names them. */
  patches: Map<string, string>;
}

/** Records the patch files a folder's kustomization names: they are partial objects, not manifests. */
function notePatches(dir: string, out: Walked): void {
  const file = ['kustomization.yaml', 'kustomization.yml'].map((n) => join(dir, n)).find(isFile);
  if (!file) return;
  let k: Record<string, unknown>;
  try {
    k = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return; // a broken kustomization is kustomize's to report; it is skipped either way
  }
  if (!isMapping(k)) return;
  const named = [k.patches, k.patchesJson6902, k.patchesStrategicMerge].flatMap((v) => (Array.isArray(v) ? v : []));
  for (const p of named) {
    const path = typeof p === 'string' ? p : isMapping(p) && typeof p.path === 'string' ? p.path : undefined;
    if (path && !path.includes('\n')) out.patches.set(normalize(join(dir, path)), file);
  }
}

function walk(path: string, patterns: RegExp[], objects: boolean, out: Walked): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError(`${path}: no such file or directory`);
  }
  if (patterns.some((p) => p.test(path))) {
    out.skipped.push({ file: path, reason: 'matches --ignore-filename-pattern', requested: true });
    return;
  }
  const why = objects ? notManifests(path, st.isDirectory()) : undefined;
  if (why) {
    out.skipped.push({ file: path, reason: why });
    return;
  }
  if (st.isFile()) {
    const by = out.patches.get(normalize(path));
    if (by) out.skipped.push({ file: path, reason: `a kustomize patch (named in ${by}), not a manifest` });
    else out.files.push(path);
    return;
  }
  if (objects) notePatches(path, out);
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(path, entry.name);
    if (entry.isDirectory() || MANIFEST_EXTENSIONS.has(extname(entry.name))) walk(full, patterns, objects, out);
  }
}

/** Lists manifest files under a path: the file itself, or every .yaml/.yml/.json below a directory, sorted. */
export function listManifestFiles(path: string): string[] {
  const out: Walked = { files: [], skipped: [], patches: new Map() };
  walk(path, [], false, out);
  return out.files;
}

/** The YAML documents of a text, each as plain data with its index; empty documents keep their index. */
function parseYaml(text: string, file: string, uniqueKeys = true): Array<{ index: number; value: unknown }> {
  let docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys });
  if ((Array.isArray(docs) ? docs : [docs]).some((d) => d.errors.length > 0)) {
    // What go-yaml accepts and the yaml package does not (yaml-quoted.ts); the first parse's error stands otherwise.
    const lenient = indentQuotedContinuations(text);
    const again = lenient === null ? null : parseAllDocuments(lenient, { prettyErrors: true, uniqueKeys });
    if (again && (Array.isArray(again) ? again : [again]).every((d) => d.errors.length === 0)) docs = again;
  }
  const out: Array<{ index: number; value: unknown }> = [];
  (Array.isArray(docs) ? docs : [docs]).forEach((doc, index) => {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      throw new InputError(`${file}[${index}]: invalid YAML: ${e.message.split('\n')[0]}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value !== null && value !== undefined) out.push({ index, value });
  });
  return out;
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `kind: List` (kubectl get -o yaml) and typed lists (`DeploymentList`, as the API returns a collection):
 * their items, which in a typed list may leave out apiVersion and kind.
 */
function unwrapList(obj: Record<string, unknown>): Array<Record<string, unknown>> | undefined {
  const kind = obj.kind;
  if (typeof kind !== 'string' || !kind.endsWith('List') || !(Array.isArray(obj.items) || obj.items === undefined || obj.items === null)) return undefined;
  const items = (obj.items ?? []) as unknown[];
  const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
  return items.flatMap((it) => {
    if (!isMapping(it)) return [it as Record<string, unknown>];
    const filled = itemKind && it.kind === undefined ? { apiVersion: obj.apiVersion, kind: itemKind, ...it } : it;
    return unwrapList(filled) ?? [filled];
  });
}

function toDocuments(file: string, index: number, value: unknown): SourceDocument[] {
  if (!isMapping(value)) {
    throw new InputError(`${file}[${index}]: expected a Kubernetes object (a mapping with apiVersion and kind), got ${Array.isArray(value) ? 'a list' : typeof value}`);
  }
  const items = unwrapList(value);
  if (!items) return [{ file, index, object: value }];
  return items.map((object, item) => {
    if (!isMapping(object)) throw new InputError(`${file}[${index}].items[${item}]: expected a Kubernetes object, got ${Array.isArray(object) ? 'a list' : typeof object}`);
    return { file, index, item, object };
  });
}

/**
 * Parses multi-document YAML (JSON is YAML too). Empty documents are skipped but still counted, so the
 * index printed in errors matches what a user counts with `---` separators. A `kind: List` (or `*List`)
 * document gives its items, each remembering its position. Duplicate keys are an error (kubectl's strict
 * decoding refuses them); 'last-wins' reads them as go-yaml's plain Unmarshal does, for test fixtures,
 * which Karmada's and Argo CD's harnesses read that way.
 */
export function parseDocuments(text: string, file: string, opts: { duplicateKeys?: 'reject' | 'last-wins' } = {}): SourceDocument[] {
  return parseYaml(text, file, opts.duplicateKeys !== 'last-wins').flatMap(({ index, value }) => toDocuments(file, index, value));
}

function kindSkipped(obj: Record<string, unknown>, skipKinds: ReadonlySet<string>): boolean {
  return skipKinds.has(String(obj.kind)) || skipKinds.has(`${String(obj.apiVersion)}/${String(obj.kind)}`);
}

/** Why a document is not a Kubernetes object to check, or undefined when it is one. */
function notAnObject(value: unknown): string | undefined {
  if (!isMapping(value)) return `not a Kubernetes object (${Array.isArray(value) ? 'a list' : typeof value})`;
  if (value.apiVersion === undefined && value.kind === undefined) return 'not a Kubernetes object (no apiVersion, no kind)';
  if (typeof value.apiVersion === 'string' && value.apiVersion.startsWith('kustomize.config.k8s.io/')) return `a kustomize ${String(value.kind)}, not a manifest`;
  return undefined;
}

/**
 * A Helm or Go template, not YAML yet: its actions break the YAML (`{{- if }}` lines), or parse as a flow
 * mapping keyed by a mapping (`replicas: {{ .Values.n }}`). Actions in strings and block scalars (alert
 * rules, Alertmanager templates in a ConfigMap) are neither, so such manifests are still read.
 */
function isTemplate(text: string): boolean {
  return parseAllDocuments(text, { uniqueKeys: false }).some((doc) => {
    if (doc.errors.length > 0) return true;
    let keyedByCollection = false;
    visit(doc, {
      Pair(_, pair) {
        if (isCollection(pair.key)) {
          keyedByCollection = true;
          return visit.BREAK;
        }
        return undefined;
      },
    });
    return keyedByCollection;
  });
}

function readText(text: string, file: string, opts: ReadOptions, skipKinds: ReadonlySet<string>, out: Input): void {
  if (opts.objects !== false && text.includes('{{') && isTemplate(text)) {
    out.skipped.push({ file, reason: 'a template ({{ }}), not a manifest; render it first and pass the result' });
    return;
  }
  for (const { index, value } of parseYaml(text, file)) {
    const why = opts.objects !== false ? notAnObject(value) : undefined;
    if (why) {
      out.skipped.push({ file, index, reason: why });
      continue;
    }
    for (const doc of toDocuments(file, index, value)) {
      if (skipKinds.size && kindSkipped(doc.object, skipKinds)) out.skipped.push({ file, index, reason: `kind ${String(doc.object.kind)} is in --skip-kinds`, requested: true });
      else out.documents.push(doc);
    }
  }
}

/** `file`, `file[2]`: where a skipped input was. */
function skippedWhere(s: SkippedInput): string {
  return s.index === undefined ? s.file : `${s.file}[${s.index}]`;
}

/** Reads every document from files, directories, or `-` (standard input), with what was left out and why. */
export function readInput(paths: string[], opts: ReadOptions = {}): Input {
  const out: Input = { documents: [], skipped: [] };
  const patterns = compilePatterns(opts.ignoreFilenamePatterns);
  const skipKinds = new Set((opts.skipKinds ?? []).flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean));
  const objects = opts.objects !== false;
  for (const p of paths) {
    if (p === '-') {
      readText((opts.stdin ?? (() => readFileSync(0, 'utf8')))(), '<stdin>', opts, skipKinds, out);
      continue;
    }
    const walked: Walked = { files: [], skipped: [], patches: new Map() };
    walk(p, patterns, objects, walked);
    out.skipped.push(...walked.skipped);
    for (const file of walked.files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new InputError(`${file}: cannot read: ${(err as Error).message}`);
      }
      readText(text, file, opts, skipKinds, out);
    }
  }
  const notice = opts.notice ?? ((m: string) => process.stderr.write(`${m}\n`));
  for (const s of out.skipped) if (!s.requested) notice(`skipped ${skippedWhere(s)}: ${s.reason}`);
  return out;
}

/** Reads every document from files, directories, or `-` (standard input); skipped input gets a notice. */
export function readDocuments(paths: string[], opts: ReadOptions | (() => string) = {}): SourceDocument[] {
  return readInput(paths, typeof opts === 'function' ? { stdin: opts } : opts).documents;
}

/**
 * The error for input with no objects: a failed `kubectl get` in a pipe, an empty folder, a List with no
 * items. Commands print it and exit 1, so that CI does not pass on nothing.
 */
export function emptyInputMessage(paths: string[], input: Input, expected = 'Kubernetes objects (YAML or JSON documents with apiVersion and kind, or a kind: List of them)'): string {
  const where = paths.map((p) => (p === '-' ? 'standard input' : p)).join(', ');
  const skipped = input.skipped.length ? ` (${input.skipped.length} file(s) or document(s) skipped)` : '';
  return `no objects in ${where}${skipped}: expected ${expected}; if a command feeds this pipe, check that it succeeded`;
}

/** `file[2]`, or `file[0].items[3]` for an object of a List: where a document is, as errors print it. */
export function documentLocation(doc: { file: string; index: number; item?: number }): string {
  return doc.item === undefined ? `${doc.file}[${doc.index}]` : `${doc.file}[${doc.index}].items[${doc.item}]`;
}

/** `Kind namespace/name` or `Kind name`, as errors print an object. */
export function describeObject(obj: Record<string, unknown>): string {
  const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  const kind = typeof obj.kind === 'string' ? obj.kind : '<no kind>';
  const name = meta.name ?? '<no name>';
  return meta.namespace ? `${kind} ${meta.namespace}/${name}` : `${kind} ${name}`;
}
