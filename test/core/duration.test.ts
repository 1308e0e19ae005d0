import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../src/core/duration.js';

describe('parseGoDuration (Go time.ParseDuration)', () => {
  it('reads each unit and their sequences in milliseconds', () => {
    expect(parseGoDuration('300ms')).toBe(300);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('2h45m')).toBe(9_900_000);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(parseGoDuration('1m0s')).toBe(60_000);
    expect(parseGoDuration('500us')).toBeCloseTo(0.5);
    expect(parseGoDuration('0')).toBe(0);
  });

  it('refuses what Go refuses: no unit, unknown units, trailing text, empty', () => {
    for (const bad of ['', '10', '5d', '1m x', 's', '1m30', '-']) expect(parseGoDuration(bad)).toBeUndefined();
  });
});
