/**
 * Admission rules and defaults of `spec.rolloutStrategy` (PropagationPolicy and ClusterPropagationPolicy),
 * karmada-lite's staged rollout after Karmada proposal #7891. Karmada has no webhook rules for it, so the
 * messages follow apimachinery's field errors and the proposal's review (a cluster in two stages is refused).
 * The CRD schema bounds the enums and minimums too; these checks give the same answer when the webhook runs
 * without karmada-lite's CRDs (`--schema decode` in a cluster whose CRDs are older).
 */
import { goQuote, invalid, json, notSupported, required, scalar, str, type FieldError } from './field-errors.js';
import { labelValueErrors, qualifiedNameErrors } from './labels.js';
import { arr, child, isObj, numOf, obj, objs, present, strMap, strOf, type Obj } from './json.js';
import { dns1123LabelErrors } from './labels.js';

const TYPES = ['AllAtOnce', 'Staged'];
const FAILURE_ACTIONS = ['Pause', 'Continue', 'Rollback'];
const SELECTOR_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** A stage without a name is called after its place in the list, as the rollout controller calls it. */
export const defaultStageName = (index: number): string => `stage-${index}`;

const duplicate = (path: string, value: string): FieldError => ({ path, message: `Duplicate value: ${goQuote(value)}` });
const forbidden = (path: string, detail: string): FieldError => ({ path, message: `Forbidden: ${detail}` });

/** Every problem with `spec.rolloutStrategy`, in field order: type, stages (each in order), gate, onFailure. */
export function validateRolloutStrategy(value: unknown, path = 'spec.rolloutStrategy'): FieldError[] {
  const strategy = obj(value);
  if (!strategy) return [];
  const errs: FieldError[] = [];
  const type = present(strategy.type) ? strOf(strategy.type) : 'AllAtOnce';
  if (!TYPES.includes(type)) errs.push(notSupported(`${path}.type`, json(strategy.type), TYPES));
  const staged = obj(strategy.staged);
  if (type === 'Staged' && !staged) errs.push(required(`${path}.staged`, 'the stages and their gates must be set when type is Staged'));
  if (type === 'AllAtOnce' && staged) {
    // The CRD defaults a missing type to AllAtOnce, so this is also what a policy that forgot `type` gets.
    errs.push(forbidden(`${path}.staged`, 'only read when type is Staged: set spec.rolloutStrategy.type to Staged, or remove staged'));
  }
  if (staged) errs.push(...validateStaged(staged, `${path}.staged`));
  return errs;
}

function validateStaged(staged: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Map<string, number>();
  /** cluster name -> the index of the first stage that names it */
  const owners = new Map<string, number>();
  objs(staged.stages).forEach((stage, i) => {
    const at = `${path}.stages[${i}]`;
    if (present(stage.name)) {
      const name = strOf(stage.name);
      for (const m of dns1123LabelErrors(name)) errs.push(invalid(`${at}.name`, str(name), m));
    }
    // Unnamed stages get stage-<i>; a user's name may collide with that default too.
    const name = strOf(stage.name) || defaultStageName(i);
    if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
    else names.set(name, i);

    const clusterNames = arr(stage.clusterNames);
    if (clusterNames.length === 0 && !selectsSomething(stage.labelSelector)) {
      errs.push(required(at, 'a stage must name its clusters (clusterNames) or select them (labelSelector with matchLabels or matchExpressions)'));
    }
    clusterNames.forEach((raw, j) => {
      const cluster = strOf(raw);
      const cp = `${at}.clusterNames[${j}]`;
      const owner = owners.get(cluster);
      if (cluster === '') errs.push(invalid(cp, str(cluster), 'must not be empty'));
      else if (owner === undefined) owners.set(cluster, i);
      else if (owner === i) errs.push(duplicate(cp, cluster));
      else errs.push(invalid(cp, str(cluster), `already in ${path}.stages[${owner}]: a cluster belongs to one stage, remove it from one of them`));
    });
    errs.push(...labelSelectorErrors(stage.labelSelector, `${at}.labelSelector`));
    if (present(stage.gate)) errs.push(...validateGate(stage.gate, `${at}.gate`));
  });
  if (present(staged.gate)) errs.push(...validateGate(staged.gate, `${path}.gate`));
  const action = obj(staged.onFailure)?.action;
  if (present(action) && !FAILURE_ACTIONS.includes(strOf(action))) errs.push(notSupported(`${path}.onFailure.action`, json(action), FAILURE_ACTIONS));
  return errs;
}

/** An empty selector would select every cluster in Kubernetes' reading; a stage must say which. */
function selectsSomething(selector: unknown): boolean {
  const s = obj(selector);
  return !!s && (strMap(s.matchLabels).length > 0 || arr(s.matchExpressions).length > 0);
}

function validateGate(value: unknown, path: string): FieldError[] {
  const gate = obj(value);
  if (!gate) return [];
  const errs: FieldError[] = [];
  const minHealthy = numOf(gate.minHealthySeconds);
  if (minHealthy !== undefined && minHealthy < 0) errs.push(invalid(`${path}.minHealthySeconds`, scalar(minHealthy), 'must be greater than or equal to 0'));
  const timeout = numOf(gate.timeoutSeconds);
  if (timeout !== undefined && timeout <= 0) errs.push(invalid(`${path}.timeoutSeconds`, scalar(timeout), 'must be greater than 0'));
  else if (timeout !== undefined && minHealthy !== undefined && minHealthy >= 0 && timeout <= minHealthy) {
    // The timeout counts from when a cluster starts progressing, the healthy spell starts no earlier.
    errs.push(invalid(`${path}.timeoutSeconds`, scalar(timeout), `must be greater than minHealthySeconds (${minHealthy}), or the stage fails before its gate can pass`));
  }
  const seen = new Set<string>();
  arr(gate.requiredConditions).forEach((raw, k) => {
    const type = strOf(raw);
    const cp = `${path}.requiredConditions[${k}]`;
    // Condition types are qualified names (apimachinery's ValidateCondition).
    for (const m of qualifiedNameErrors(type)) errs.push(invalid(cp, str(type), m));
    if (seen.has(type)) errs.push(duplicate(cp, type));
    seen.add(type);
  });
  return errs;
}

/** apimachinery's ValidateLabelSelector (matchLabels keys in sorted order, where Go's map order is random). */
export function labelSelectorErrors(value: unknown, path: string): FieldError[] {
  const selector = obj(value);
  if (!selector) return [];
  const errs: FieldError[] = [];
  for (const [key, v] of strMap(selector.matchLabels)) {
    for (const m of qualifiedNameErrors(key)) errs.push(invalid(`${path}.matchLabels`, str(key), m));
    for (const m of labelValueErrors(v)) errs.push(invalid(`${path}.matchLabels`, str(v), m));
  }
  objs(selector.matchExpressions).forEach((expr, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const op = strOf(expr.operator);
    const values = arr(expr.values);
    if (!SELECTOR_OPERATORS.has(op)) errs.push(invalid(`${at}.operator`, str(op), 'not a valid selector operator'));
    else if ((op === 'In' || op === 'NotIn') && values.length === 0) errs.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    else if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) errs.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    const key = strOf(expr.key);
    for (const m of qualifiedNameErrors(key)) errs.push(invalid(`${at}.key`, str(key), m));
    values.forEach((raw, k) => {
      for (const m of labelValueErrors(strOf(raw))) errs.push(invalid(`${at}.values[${k}]`, str(strOf(raw)), m));
    });
  });
  return errs;
}

/**
 * The mutating webhook's defaults, in place on a copy: stage names, the failure action and the default gate,
 * so that `kubectl get -o yaml` shows what the rollout controller will do. Gates are not copied into stages:
 * a stage without a gate keeps following staged.gate when that is edited later. Default stages (one per
 * scheduled cluster) depend on the binding and are the controller's.
 */
export function defaultRolloutStrategy(spec: Obj): void {
  const strategy = obj(spec.rolloutStrategy);
  const staged = obj(strategy?.staged);
  if (!strategy || !staged || strOf(strategy.type) !== 'Staged') return;
  arr(staged.stages).forEach((stage, i) => {
    if (!isObj(stage)) return;
    if (strOf(stage.name) === '') stage.name = defaultStageName(i);
    if (isObj(stage.gate)) defaultGate(stage.gate);
  });
  defaultGate(child(staged, 'gate'));
  const onFailure = child(staged, 'onFailure');
  if (!present(onFailure.action)) onFailure.action = 'Pause';
}

/** The CRD's defaults, for webhooks in clusters whose CRDs do not carry them. */
function defaultGate(gate: Obj): void {
  if (!present(gate.requireHealthy)) gate.requireHealthy = true;
  if (!present(gate.minHealthySeconds)) gate.minHealthySeconds = 0;
}
