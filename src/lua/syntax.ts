/**
 * Compiling a script the way Karmada's webhook does: Lua 5.1 syntax, with gopher-lua's error format
 * (`<string> line:3(column:7) near 'end':   syntax error` / `<string> at EOF:   syntax error`).
 *
 * fengari parses Lua 5.3, which accepts operators Lua 5.1 rejects (`//`, `&`, `|`, `~`, `<<`, `>>`).
 * A small lexer finds those first; fengari's parser then finds every other syntax error, and its message
 * is re-expressed in gopher's form using the lexer's token positions.
 */

interface Token {
  text: string;
  line: number;
  /** 1-based column of the token's last character (where gopher's scanner stands when it reports). */
  col: number;
}

export class LuaSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LuaSyntaxError';
  }
}

function lex(src: string): { tokens: Token[]; error?: { line: number; col: number; near: string; msg: string } } {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = src.length;
  const col = (pos: number) => pos - lineStart + 1;
  const newline = (pos: number) => {
    line++;
    lineStart = pos + 1;
  };
  const longBracket = (pos: number): number => {
    // returns level if src[pos] starts [=*[ , else -1
    if (src[pos] !== '[') return -1;
    let j = pos + 1;
    let level = 0;
    while (src[j] === '=') {
      level++;
      j++;
    }
    return src[j] === '[' ? level : -1;
  };
  const skipLong = (pos: number, level: number): number => {
    const close = ']' + '='.repeat(level) + ']';
    let j = pos + level + 2;
    for (; j < n; j++) {
      if (src.startsWith(close, j)) return j + close.length;
      if (src[j] === '\n') newline(j);
    }
    return -1;
  };
  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      newline(i);
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '-' && src[i + 1] === '-') {
      const lvl = longBracket(i + 2);
      if (lvl >= 0) {
        const end = skipLong(i + 2, lvl);
        if (end < 0) return { tokens, error: { line: -1, col: 0, near: '', msg: 'unterminated comment' } };
        i = end;
        continue;
      }
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    const startLine = line;
    if (/[A-Za-z_]/.test(c)) {
      while (i < n && /[A-Za-z0-9_]/.test(src[i]!)) i++;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      while (i < n && /[0-9A-Za-z_.]/.test(src[i]!)) {
        if ((src[i] === 'e' || src[i] === 'E') && (src[i + 1] === '+' || src[i + 1] === '-')) i++;
        i++;
      }
    } else if (c === '"' || c === "'") {
      i++;
      while (i < n && src[i] !== c) {
        if (src[i] === '\\') i++;
        if (src[i] === '\n') return { tokens, error: { line, col: col(i), near: src.slice(start, i), msg: 'unterminated string' } };
        i++;
      }
      if (i >= n) return { tokens, error: { line: -1, col: 0, near: '', msg: 'unterminated string' } };
      i++;
    } else if (c === '[' && longBracket(i) >= 0) {
      const end = skipLong(i, longBracket(i));
      if (end < 0) return { tokens, error: { line: -1, col: 0, near: '', msg: 'unterminated string' } };
      i = end;
    } else {
      const three = src.slice(i, i + 3);
      const two = src.slice(i, i + 2);
      if (three === '...') i += 3;
      else if (['==', '~=', '<=', '>=', '..', '::', '//', '<<', '>>'].includes(two)) i += 2;
      else i += 1;
    }
    const text = src.slice(start, i);
    tokens.push({ text, line: startLine, col: startLine === line ? col(i - 1) : col(i - 1) });
  }
  return { tokens };
}

const LUA53_ONLY = new Set(['//', '&', '|', '~', '<<', '>>']);

function gopherError(line: number, col: number, near: string, msg: string): string {
  if (line < 0) return `<string> at EOF:   ${msg}\n`;
  return `<string> line:${line}(column:${col}) near '${near}':   ${msg}\n`;
}

/** Checks 5.1-only syntax; returns a gopher-style message or null. */
export function lua51Violation(src: string): string | null {
  const { tokens, error } = lex(src);
  if (error) return gopherError(error.line, error.col, error.near, error.msg);
  for (const t of tokens) {
    if (LUA53_ONLY.has(t.text)) return gopherError(t.line, t.col, t.text, 'syntax error');
  }
  return null;
}

/**
 * Re-expresses a fengari compile error (`<string>:3: 'end' expected near 'x'`) in gopher-lua's format.
 */
export function gopherCompileMessage(src: string, fengariMessage: string): string {
  const m = /^<string>:(\d+): (.*?)(?: near (<eof>|'(.*)'))?$/s.exec(fengariMessage.trim());
  if (!m) return `<string> at EOF:   syntax error\n`;
  const line = Number(m[1]);
  const near = m[3];
  if (near === '<eof>' || near === undefined) return `<string> at EOF:   syntax error\n`;
  const token = m[4] ?? '';
  const { tokens } = lex(src);
  const tok = tokens.find((t) => t.line === line && t.text === token) ?? tokens.find((t) => t.line === line);
  return gopherError(line, tok ? tok.col : 1, token, 'syntax error');
}
