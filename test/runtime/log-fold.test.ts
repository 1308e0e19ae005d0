import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/log.js';
import { failureKind, LogFold } from '../../src/runtime/log-fold.js';

function setup() {
  let now = 0;
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  const fold = new LogFold(log, { intervalMs: 30_000, now: () => now });
  return { fold, lines, advance: (ms: number) => (now += ms) };
}

describe('folding repeated failures', () => {
  it('logs the first failure at once and its repeats as one line with a count per interval', () => {
    const { fold, lines, advance } = setup();
    const log = fold.logger();
    for (let i = 0; i < 50; i++) log.warn('watch failed', { cluster: 'member1', kind: 'Deployment', err: `connect ECONNREFUSED 127.0.0.1:${40000 + i}` });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'watch failed', cluster: 'member1' });
    expect(lines[0]!.repeated).toBeUndefined();
    advance(10_000);
    fold.tick();
    expect(lines).toHaveLength(1);
    advance(20_000);
    fold.tick();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ msg: 'watch failed', cluster: 'member1', repeated: 49, intervalSeconds: 30, err: 'connect ECONNREFUSED 127.0.0.1:40049' });
    // A quiet interval ends the fold: the next failure is news again.
    advance(30_000);
    fold.tick();
    expect(lines).toHaveLength(2);
    log.warn('watch failed', { cluster: 'member1', kind: 'Deployment', err: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(lines).toHaveLength(3);
    expect(lines[2]!.repeated).toBeUndefined();
  });

  it('keeps failures of different kinds, members or controllers apart', () => {
    const { fold, lines } = setup();
    const log = fold.logger();
    log.warn('reconcile failed', { controller: 'execution', err: 'member cluster member1 does not answer' });
    log.warn('reconcile failed', { controller: 'execution', err: 'member cluster member2 does not answer' });
    log.warn('reconcile failed', { controller: 'binding', err: 'member cluster member1 does not answer' });
    log.error('reconcile failed', { controller: 'execution', err: 'member cluster member1 does not answer' });
    expect(lines).toHaveLength(4);
  });

  it('treats errors that differ only in the object they name as one kind', () => {
    expect(failureKind('PUT /apis/apps/v1/namespaces/a/deployments/x: 409 Conflict: the object "x" has been modified')).toBe(
      failureKind('PUT /apis/apps/v1/namespaces/b/deployments/y: 409 Conflict: the object "y" has been modified'),
    );
    expect(failureKind('member cluster member1 does not answer')).not.toBe(failureKind('member cluster member2 does not answer'));
  });

  it('passes debug and info lines through, and logs what is pending on stop()', () => {
    const { fold, lines } = setup();
    const log = fold.logger().child({ component: 'controller' });
    log.info('propagated');
    log.info('propagated');
    log.error('cannot connect to member cluster', { cluster: 'm1', err: 'secret not found' });
    log.error('cannot connect to member cluster', { cluster: 'm1', err: 'secret not found' });
    expect(lines).toHaveLength(3);
    fold.stop();
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatchObject({ component: 'controller', msg: 'cannot connect to member cluster', repeated: 1 });
  });
});
