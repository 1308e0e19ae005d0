/**
 * `-o/--output` as kubectl means it, for every command that prints Kubernetes objects: json and yaml
 * (one object as itself, several as a `kind: List`), name (`kind.group/name`), wide (the command's
 * table with every column), `jsonpath=TEMPLATE` and `custom-columns=HEADER:.path,...`. Each command
 * says which formats fit its output; anything else is a usage error that lists them.
 */
import { Option } from 'commander';
import { stringify } from 'yaml';
import { InputError } from '../io/documents.js';
import { executeJsonPath, JsonPathError, parseJsonPathTemplate, printJsonPathValue, selectJsonPath, type JsonPathTemplate } from './jsonpath.js';

export type OutputName = 'json' | 'yaml' | 'name' | 'wide' | 'table' | 'text' | 'html' | 'jsonpath' | 'custom-columns';

export type Output =
  | { format: Exclude<OutputName, 'jsonpath' | 'custom-columns'> }
  | { format: 'jsonpath'; template: JsonPathTemplate }
  | { format: 'custom-columns'; columns: Array<{ header: string; path: JsonPathTemplate }> };

/** The formats of each `-o` option, for `completion` (commander keeps no such list when values are free-form). */
export const outputFormatsOf = new WeakMap<Option, readonly string[]>();

/** How a format is spelled in help and completion: the two with an argument show their `=`. */
const spelled = (f: OutputName) => (f === 'jsonpath' || f === 'custom-columns' ? `${f}=...` : f);

/** `-o, --output <format>` with the formats a command prints, the first the default: `cmd.addOption(outputOption(...))`. */
export function outputOption(formats: readonly OutputName[], describe = ''): Option {
  const opt = new Option('-o, --output <format>', `${formats.map(spelled).join(', ')}${describe ? `: ${describe}` : ''}`).default(formats[0]);
  outputFormatsOf.set(opt, formats.map(spelled));
  return opt;
}

/** Parses an `-o` value against the formats a command prints; a usage error (exit 2) names the choices. */
export function parseOutput(value: string, formats: readonly OutputName[]): Output {
  const usage = () => new InputError(`--output must be one of ${formats.map(spelled).join(', ')}, got ${JSON.stringify(value)}`);
  const eq = value.indexOf('=');
  const name = (eq < 0 ? value : value.slice(0, eq)) as OutputName;
  if (!formats.includes(name)) throw usage();
  const arg = eq < 0 ? undefined : value.slice(eq + 1);
  try {
    if (name === 'jsonpath') {
      if (!arg) throw new InputError('-o jsonpath needs a template, e.g. -o jsonpath=\'{.items[*].metadata.name}\'');
      return { format: 'jsonpath', template: parseJsonPathTemplate(arg) };
    }
    if (name === 'custom-columns') {
      if (!arg) throw new InputError('-o custom-columns needs columns, e.g. -o custom-columns=NAME:.metadata.name,KIND:.kind');
      return { format: 'custom-columns', columns: parseColumns(arg) };
    }
  } catch (e) {
    if (e instanceof JsonPathError) throw new InputError(e.message);
    throw e;
  }
  if (arg !== undefined) throw usage();
  return { format: name } as Output;
}

function parseColumns(spec: string): Array<{ header: string; path: JsonPathTemplate }> {
  return spec.split(',').map((col) => {
    const i = col.indexOf(':');
    if (i <= 0 || i === col.length - 1) throw new InputError(`-o custom-columns: ${JSON.stringify(col)} is not HEADER:.path (e.g. NAME:.metadata.name)`);
    const path = col.slice(i + 1).trim();
    // kubectl accepts `.metadata.name` and `{.metadata.name}` alike.
    return { header: col.slice(0, i), path: parseJsonPathTemplate(path.startsWith('{') ? path : `{${path}}`) };
  });
}

export type KubeObject = Record<string, unknown> & { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };

/** kubectl's `-o name`: `deployment.apps/web`, `configmap/settings`. */
export function objectName(o: KubeObject): string {
  const kind = String(o.kind ?? '').toLowerCase();
  const apiVersion = String(o.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${kind}${group ? `.${group}` : ''}/${String(o.metadata?.name ?? '')}`;
}

/** Several objects print as kubectl prints a list: a v1 List of them. */
export function asList(objects: readonly unknown[]): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
}

export const toJson = (v: unknown) => JSON.stringify(v, null, 4) + '\n';

export const toYaml = (v: unknown) => stringify(v, { lineWidth: 0 });

/** A column of a command's table: `wide` marks the ones only `-o wide` shows. */
export interface Column<T> {
  header: string;
  value: (row: T) => string;
  wide?: boolean;
}

/** Aligned columns, two spaces apart, as kubectl prints tables. */
export function formatTable(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('   ').trimEnd()).join('\n') + '\n';
}

/** The table of a command: its narrow columns, or all of them with -o wide. */
export function printTable<T>(rows: readonly T[], columns: readonly Column<T>[], wide: boolean): string {
  const shown = columns.filter((c) => wide || !c.wide);
  return formatTable([shown.map((c) => c.header), ...rows.map((r) => shown.map((c) => c.value(r)))]);
}

function customColumns(objects: readonly unknown[], columns: Array<{ header: string; path: JsonPathTemplate }>): string {
  const cell = (o: unknown, path: JsonPathTemplate) => {
    const values = selectJsonPath(path, o);
    return values.length === 0 ? '<none>' : values.map(printJsonPathValue).join(',');
  };
  return formatTable([columns.map((c) => c.header), ...objects.map((o) => columns.map((c) => cell(o, c.path)))]);
}

export interface PrintObjectsOptions<T> {
  /** The table of `-o wide` (and of `-o table` where a command has one). */
  columns?: readonly Column<T>[];
  /** Replaces the default yaml (one object, or a List): e.g. `crds` prints a multi-document stream for kubectl apply. */
  yaml?: (objects: readonly T[]) => string;
}

/** Prints objects in one of the formats of parseOutput; `text` is the command's own and is not handled here. */
export function printObjects<T extends KubeObject>(objects: readonly T[], out: Output, opts: PrintObjectsOptions<T> = {}): string {
  const one = objects.length === 1 ? objects[0] : asList(objects);
  switch (out.format) {
    case 'json':
      return toJson(one);
    case 'yaml':
      return opts.yaml ? opts.yaml(objects) : toYaml(one);
    case 'name':
      return objects.map((o) => objectName(o) + '\n').join('');
    case 'jsonpath':
      // No newline of its own, as kubectl: the template says where lines end ({"\n"}).
      return executeJsonPath(out.template, one);
    case 'custom-columns':
      return customColumns(objects, out.columns);
    case 'wide':
    case 'table':
      if (!opts.columns) throw new InputError(`--output ${out.format} is not available here`);
      return printTable(objects, opts.columns, out.format === 'wide');
    case 'text':
    case 'html':
      throw new InputError(`--output ${out.format} is printed by the command itself`);
  }
}
