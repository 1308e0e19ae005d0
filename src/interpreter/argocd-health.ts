/**
 * Argo CD health checks as an InterpretHealth layer (`--health-checks DIR`): a tree in Argo CD's
 * resource_customizations layout, `<group>/<Kind>/health.lua` (core kinds: `<Kind>/health.lua`), where a
 * `_` in a folder name is a wildcard. Matching follows Argo CD (util/lua/lua.go GetHealthScript): the
 * exact `group/Kind` folder first, else the first wildcard folder, in sorted order, whose pattern (`_`
 * read as `*`, which stays within one path segment) matches `group/Kind`.
 *
 * A script reads the global `obj` and returns `{status = ..., message = ...}`. karmada-lite's health is
 * tri-state: Healthy -> Healthy, Degraded -> Unhealthy, anything else (Progressing, Suspended, Missing,
 * Unknown, no status) -> Unknown; the message is kept beside it. Scripts run in a sandbox of their own
 * with Argo CD's string library (string.gsub, string.rep), under the same byte and time budgets.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as fengariModule from '../lua/fengari.js';
import { toJsString, type LuaState } from '../lua/fengari.js';
import { LuaSandbox, LuaScriptError } from '../lua/sandbox.js';
import { InterpreterError, type GVK, type Health, type KubeObject } from './types.js';
import { errorMessage } from '../json/error.js';

const lua: typeof fengariModule.lua = fengariModule.lua;

export const HEALTH_SCRIPT_FILE = 'health.lua';
export const HEALTH_TEST_FILE = 'health_test.yaml';

/** Argo CD's health status codes (gitops-engine pkg/health). */
export const ARGOCD_HEALTH_STATUSES = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;

/** Argo CD's text for a status outside ARGOCD_HEALTH_STATUSES (util/lua invalidHealthStatus). */
export const INVALID_HEALTH_STATUS = 'Lua returned an invalid health status';

/** The entry function the script body is wrapped in; `obj` is its parameter, so the body sees it as Argo CD binds it. */
const ENTRY = 'ArgoCDHealth';

export interface HealthCheck {
  /** The folder below the root, with `/` separators: `cert-manager.io/Certificate`, `_.crossplane.io/_`. */
  key: string;
  file: string;
  /** The script as written. */
  source: string;
  /** The script wrapped in its entry function (line numbers unchanged). */
  script: string;
}

/** A loaded tree (or several: an earlier root wins a folder). Plain data, so it can go to a worker thread. */
export interface HealthChecks {
  exact: Record<string, HealthCheck>;
  /** Wildcard folders in Argo CD's order (sorted by folder). */
  wildcards: HealthCheck[];
}

export interface HealthCheckProblem {
  file: string;
  message: string;
}

export interface HealthResult {
  /** Argo CD's status as the script returned it ('' when it returned nothing). */
  status: string;
  message: string;
}

/** Wraps a health.lua body so that the sandbox can call it; the first line stays line 1. */
export function wrapHealthScript(source: string): string {
  return `function ${ENTRY}(obj) ${source}\nend`;
}

/** Every folder with a health.lua below `root` (relative, `/`-separated), sorted. */
export function findHealthCheckDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.isFile() && e.name === HEALTH_SCRIPT_FILE)) out.push(relative(root, d).split(sep).join('/'));
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) if (e.isDirectory() && e.name !== 'testdata') walk(join(d, e.name));
  };
  walk(root);
  return out.sort();
}

/** True when `dir` is (or holds) an Argo CD-layout tree: some health.lua below it. */
export function isHealthCheckTree(dir: string): boolean {
  return existsSync(dir) && statSync(dir).isDirectory() && findHealthCheckDirs(dir).length > 0;
}

/**
 * Loads the trees; a file that cannot be read or does not compile is a problem (named by its file) and
 * is left out, the others load. A folder a previous root already has is a problem too (the first wins).
 */
export function loadHealthChecks(roots: readonly string[], sandbox?: LuaSandbox): { checks: HealthChecks; problems: HealthCheckProblem[] } {
  const sb = sandbox ?? new LuaSandbox({ stringLibrary: 'argocd' });
  const exact: Record<string, HealthCheck> = {};
  const wild = new Map<string, HealthCheck>();
  const problems: HealthCheckProblem[] = [];
  for (const root of roots) {
    if (!existsSync(root) || !statSync(root).isDirectory()) {
      problems.push({ file: root, message: 'not a directory: --health-checks takes the root of a <group>/<Kind>/health.lua tree' });
      continue;
    }
    for (const key of findHealthCheckDirs(root)) {
      const file = join(root, key, HEALTH_SCRIPT_FILE);
      const earlier = exact[key] ?? wild.get(key);
      if (earlier) {
        problems.push({ file, message: `${key} is already loaded from ${earlier.file}; this one is ignored` });
        continue;
      }
      let source: string;
      try {
        source = readFileSync(file, 'utf8');
      } catch (e) {
        problems.push({ file, message: errorMessage(e) });
        continue;
      }
      const script = wrapHealthScript(source);
      const err = sb.compile(script);
      if (err) {
        problems.push({ file, message: err.trim() });
        continue;
      }
      const check: HealthCheck = { key, file, source, script };
      if (key.includes('_')) wild.set(key, check);
      else exact[key] = check;
    }
  }
  const wildcards = [...wild.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { checks: { exact, wildcards }, problems };
}

/** Argo CD's key of a kind: `group/Kind`, or `Kind` for the core group. */
export function healthKey(gvk: GVK): string {
  const slash = gvk.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : gvk.apiVersion.slice(0, slash);
  return group === '' ? gvk.kind : `${group}/${gvk.kind}`;
}

const patternCache = new Map<string, RegExp>();

/** A wildcard folder as doublestar matches it: `_` (read as `*`) is any run of characters but `/`. */
function wildcardPattern(key: string): RegExp {
  let re = patternCache.get(key);
  if (!re) {
    const body = key
      .split('_')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*');
    re = new RegExp(`^${body}$`);
    patternCache.set(key, re);
  }
  return re;
}

/** The health check for a kind: the exact folder, else the first wildcard folder that matches. */
export function healthCheckFor(checks: HealthChecks, gvk: GVK): HealthCheck | undefined {
  const key = healthKey(gvk);
  const hit = checks.exact[key];
  if (hit) return hit;
  return checks.wildcards.find((c) => wildcardPattern(c.key).test(key));
}

export function isEmptyHealthChecks(checks: HealthChecks | undefined): boolean {
  return !checks || (Object.keys(checks.exact).length === 0 && checks.wildcards.length === 0);
}

/** Argo CD's status mapped onto karmada-lite's tri-state health (README "Health checks"). */
export function mapArgoHealth(status: string): Health {
  if (status === 'Healthy') return 'Healthy';
  if (status === 'Degraded') return 'Unhealthy';
  return 'Unknown';
}

function stringField(L: LuaState, name: string): string {
  lua.lua_getfield(L, 1, fengariModule.to_luastring(name));
  const t = lua.lua_type(L, -1);
  let v = '';
  if (t === lua.LUA_TSTRING) v = toJsString(L, -1);
  else if (t === lua.LUA_TNUMBER) {
    lua.lua_pop(L, 1);
    // encoding/json will not put a number into the string field.
    throw new InterpreterError(`json: cannot unmarshal number into Go struct field HealthStatus.${name} of type string`, 'InterpretHealth');
  } else if (t !== lua.LUA_TNIL) {
    const type = fengariModule.to_jsstring(lua.lua_typename(L, t));
    lua.lua_pop(L, 1);
    throw new InterpreterError(`json: cannot unmarshal ${type === 'table' ? 'object' : type} into Go struct field HealthStatus.${name} of type string`, 'InterpretHealth');
  }
  lua.lua_pop(L, 1);
  return v;
}

function readHealth(L: LuaState, n: number): HealthResult {
  const t = n < 1 ? lua.LUA_TNIL : lua.lua_type(L, 1);
  // As Argo CD: no result is an empty status; anything but a table is an error.
  if (t === lua.LUA_TNIL || t === lua.LUA_TNONE) return { status: '', message: '' };
  if (t !== lua.LUA_TTABLE) {
    throw new InterpreterError(`expect the returned value to be a table but got ${fengariModule.to_jsstring(lua.lua_typename(L, t))}`, 'InterpretHealth');
  }
  const status = stringField(L, 'status');
  const message = stringField(L, 'message');
  if (status !== '' && !(ARGOCD_HEALTH_STATUSES as readonly string[]).includes(status)) return { status: 'Unknown', message: INVALID_HEALTH_STATUS };
  return { status, message };
}

/** Runs one health check on an object. Script errors and budgets throw InterpreterError naming the file. */
export function runHealthCheck(sb: LuaSandbox, check: HealthCheck, obj: KubeObject): HealthResult {
  try {
    return sb.run(check.script, ENTRY, 'InterpretHealth', [obj], 1, readHealth);
  } catch (e) {
    if (e instanceof LuaScriptError) throw new InterpreterError(`${check.key}/${HEALTH_SCRIPT_FILE}: ${e.message}`, 'InterpretHealth');
    throw e;
  }
}
