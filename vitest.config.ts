import { defineConfig } from 'vitest/config';
import { scaled } from './test/time-scale.js';

// Two projects: `unit` needs no server; `integration` starts the real etcd + kube-apiservers once per run
// (test/integration/global-setup.ts) and talks to them over loopback. Timeouts scale with the machine
// (test/time-scale.ts): they bound a hung test, they never measure speed.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'node_modules/**'],
          testTimeout: scaled(30_000),
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: scaled(120_000),
          hookTimeout: scaled(600_000),
          fileParallelism: false,
        },
      },
    ],
  },
});
