/**
 * The one construct go-yaml (sigs.k8s.io/yaml, what Kubernetes and Karmada read YAML with) accepts and
 * the `yaml` package rejects, found so far: a multi-line single- or double-quoted scalar whose
 * continuation lines are not indented past their key (`message: "a long\ntext"` with `text"` under
 * `message`). Karmada's own fixtures contain it. YAML 1.2 wants those lines indented; go-yaml does not
 * check. Indenting them changes nothing in the value (a quoted scalar's line breaks fold and the
 * leading white space of its continuation lines is dropped), so documents.ts parses again with them
 * indented when the first parse failed. Every case lives in conformance/yaml.
 */

const DQ = 34;
const SQ = 39;

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && line.charCodeAt(i) === 32) i++;
  return i;
}

/** The column after the indentation and any `- ` sequence markers: where the line's node starts. */
function nodeColumn(line: string): number {
  let i = indentOf(line);
  while (line[i] === '-' && (line[i + 1] === ' ' || i + 1 === line.length)) {
    i++;
    while (line[i] === ' ') i++;
  }
  return i;
}

/** A quote at `i` opens a quoted scalar: it begins a node (not the inside of a plain scalar such as `it's`). */
function opensScalar(line: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && line[j] === ' ') j--;
  if (j < 0) return true;
  const c = line[j]!;
  if (c === '[' || c === '{' || c === ',') return true;
  // `key: "x"` and `- "x"`: the indicator must be followed by white space, which we skipped.
  if ((c === ':' || c === '-' || c === '?') && j < i - 1) return c !== '-' || j === 0 || line[j - 1] === ' ';
  return false;
}

/** A block scalar header ends the line (`key: |`, `- >-`, `key: |2 # comment`). */
const BLOCK_HEADER = /(?:^|[\s:-])[|>][-+0-9]*\s*$/;

/**
 * The text with the continuation lines of multi-line quoted scalars indented one column past the node
 * that holds them, or null when no line needed it.
 */
export function indentQuotedContinuations(text: string): string | null {
  const lines = text.split('\n');
  let changed = false;
  let quote = 0;
  let required = 0;
  let blockIndent = -1;
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!;
    let i = 0;
    if (quote) {
      if (line.trim() !== '' && indentOf(line) < required) {
        line = ' '.repeat(required) + line.trimStart();
        lines[n] = line;
        changed = true;
      }
      i = indentOf(line);
    } else {
      if (blockIndent >= 0) {
        if (line.trim() === '' || indentOf(line) > blockIndent) continue;
        blockIndent = -1;
      }
      if (line.startsWith('---') || line.startsWith('...')) continue;
    }
    let end = line.length;
    for (; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (quote === DQ) {
        if (c === 92) i++;
        else if (c === DQ) quote = 0;
        continue;
      }
      if (quote === SQ) {
        if (c === SQ) {
          if (line.charCodeAt(i + 1) === SQ) i++;
          else quote = 0;
        }
        continue;
      }
      if (c === 35 && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) {
        end = i;
        break;
      }
      if ((c === DQ || c === SQ) && opensScalar(line, i)) {
        quote = c;
        required = nodeColumn(line) + 1;
      }
    }
    if (!quote && BLOCK_HEADER.test(line.slice(0, end))) blockIndent = indentOf(line);
  }
  return changed ? lines.join('\n') : null;
}
