import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, parseLogFormat } from '../../src/runtime/log.js';

const at = new Date('2026-01-02T03:04:05.678Z');

function capture(format?: 'json' | 'text', level?: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = [];
  const log = createLogger({ format, level, write: (l) => void lines.push(l), now: () => at, fields: { component: 'controller' } });
  return { log, lines };
}

describe('logs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one JSON object per line with level name, time, msg and fields', () => {
    const { log, lines } = capture();
    log.info('member cluster connected', { cluster: 'member1', err: new Error('boom') });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0]!)).toEqual({ level: 'info', time: at.toISOString(), component: 'controller', cluster: 'member1', err: 'boom', msg: 'member cluster connected' });
  });

  it('drops lines below the level and says so through enabled()', () => {
    const { log, lines } = capture('json', 'warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(['warn', 'error']);
    expect(log.enabled('info')).toBe(false);
    expect(log.enabled('error')).toBe(true);
  });

  it('adds a child logger\'s fields to each of its lines', () => {
    const { log, lines } = capture();
    log.child({ controller: 'execution' }).warn('reconcile failed', { key: 'a' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: 'controller', controller: 'execution', key: 'a', msg: 'reconcile failed', level: 'warn' });
  });

  it('writes text for a human with --log-format text: time, level, message and fields on one line', () => {
    const { log, lines } = capture('text');
    log.error('cannot connect to member cluster', { cluster: 'member1', err: new Error('secret not found') });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).not.toContain('{"level"');
    expect(line).toMatch(/ERROR.*cannot connect to member cluster/);
    expect(line).toContain('"cluster":"member1"');
    expect(line).toContain('"err":"secret not found"');
    expect(line.trimEnd().split('\n')).toHaveLength(1);
  });

  it('defaults to text on a terminal and to JSON on a pipe', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    try {
      Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
      createLogger({ colorize: false }).info('on a terminal', { cluster: 'm1' });
      expect(written.join('')).toMatch(/INFO.*on a terminal/);
      expect(written.join('')).not.toContain('"msg"');
    } finally {
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
    const lines: string[] = [];
    createLogger({ write: (l) => void lines.push(l) }).info('in a pipe');
    expect(JSON.parse(lines[0]!).msg).toBe('in a pipe');
  });

  it('checks --log-format', () => {
    expect(parseLogFormat(undefined)).toBeUndefined();
    expect(parseLogFormat('json')).toBe('json');
    expect(parseLogFormat('text')).toBe('text');
    expect(() => parseLogFormat('yaml')).toThrow('--log-format must be json or text, got yaml');
  });
});
