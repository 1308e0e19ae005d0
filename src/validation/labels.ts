/**
 * Label keys and values, qualified names, DNS subdomains and JSON pointers, with apimachinery's messages.
 * Lengths are in UTF-8 bytes, as Go's len() counts them.
 */

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MAX = 63;
const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const SUBDOMAIN_RE = new RegExp(`^${SUBDOMAIN_FMT}$`);
const SUBDOMAIN_MAX = 253;
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MAX = 63;

/** apimachinery's RegexError: the examples each end in `', '`, so a double space precedes every ` or`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += ' or ';
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

const TOO_MANY_SLASHES =
  "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

/** Every problem with a DNS-1123 subdomain (both the length and the format can be wrong at once). */
export function subdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > SUBDOMAIN_MAX) errs.push(`must be no more than ${SUBDOMAIN_MAX} bytes`);
  if (!SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** Label keys, annotation keys, affinity names, alias label names: `[prefix/]name`. Empty list = valid. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of subdomainErrors(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [TOO_MANY_SLASHES];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (bytes(name) > QUALIFIED_NAME_MAX) errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX} bytes`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (bytes(value) > LABEL_VALUE_MAX) errs.push(`must be no more than ${LABEL_VALUE_MAX} bytes`);
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** go-openapi/jsonpointer's parse check: only the leading slash is checked, and its error has two lines. */
export function jsonPointerError(pointer: string): string | undefined {
  if (pointer === '' || pointer.startsWith('/')) return undefined;
  return 'JSON pointer must be empty or start with a "/"\nJSON pointer error';
}

/** apimachinery's IsDNS1123Label / IsDNS1035Label: every problem, in its words. */
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_MAX = 63;

function dnsLabelErrors(value: string, fmt: string, message: string, examples: string[]): string[] {
  const errs: string[] = [];
  if (bytes(value) > LABEL_MAX) errs.push(`must be no more than ${LABEL_MAX} bytes`);
  if (!new RegExp(`^${fmt}$`).test(value)) errs.push(regexError(message, fmt, ...examples));
  return errs;
}

export const dns1123LabelErrors = (v: string) =>
  dnsLabelErrors(v, DNS1123_LABEL_FMT, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", ['my-name', '123-abc']);
export const dns1035LabelErrors = (v: string) =>
  dnsLabelErrors(v, DNS1035_LABEL_FMT, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", ['my-name', 'abc-123']);
