import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** One parsed document with where it came from, so every error can name the file and the index. */
export interface SourceDocument {
  file: string;
  index: number;
  object: Record<string, unknown>;
}

/** Raised for input that cannot be read at all (missing file, bad YAML): callers map it to exit code 2. */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Lists manifest files under a path: the file itself, or every .yaml/.yml/.json below a directory, sorted. */
export function listManifestFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new InputError(`${path}: no such file or directory`);
  }
  if (st.isFile()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) out.push(...listManifestFiles(full));
    else if (MANIFEST_EXTENSIONS.has(extname(entry.name))) out.push(full);
  }
  return out;
}

/**
 * Parses multi-document YAML (JSON is YAML too). Empty documents are skipped but still counted, so the
 * index printed in errors matches what a user counts with `---` separators. A `kind: List` is not
 * flattened: each document is kept as the user wrote it.
 */
export function parseDocuments(text: string, file: string): SourceDocument[] {
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  const out: SourceDocument[] = [];
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      throw new InputError(`${file}[${index}]: invalid YAML: ${e.message.split('\n')[0]}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError(`${file}[${index}]: expected a Kubernetes object (a mapping with apiVersion and kind), got ${Array.isArray(value) ? 'a list' : typeof value}`);
    }
    out.push({ file, index, object: value as Record<string, unknown> });
  });
  return out;
}

/** Reads every document from files, directories, or `-` (standard input). */
export function readDocuments(paths: string[], stdin: () => string = () => readFileSync(0, 'utf8')): SourceDocument[] {
  const out: SourceDocument[] = [];
  for (const p of paths) {
    if (p === '-') {
      out.push(...parseDocuments(stdin(), '<stdin>'));
      continue;
    }
    for (const file of listManifestFiles(p)) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new InputError(`${file}: cannot read: ${(err as Error).message}`);
      }
      out.push(...parseDocuments(text, file));
    }
  }
  return out;
}

/** `Kind namespace/name` or `Kind name`, as errors print an object. */
export function describeObject(obj: Record<string, unknown>): string {
  const meta = (obj.metadata ?? {}) as { name?: string; namespace?: string };
  const kind = typeof obj.kind === 'string' ? obj.kind : '<no kind>';
  const name = meta.name ?? '<no name>';
  return meta.namespace ? `${kind} ${meta.namespace}/${name}` : `${kind} ${name}`;
}
