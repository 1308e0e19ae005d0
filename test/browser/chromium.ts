/**
 * The shared headless Chromium for browser tests and benches: Playwright (playwright-core) driving the
 * system's chromium, with a fresh profile per launch. Tests call `chromiumMissing()` first and skip with
 * its message when the browser is not installed.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';

/** Debian's chromium, or CHROMIUM=/path/to/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Where browser tests leave their screenshots (gitignored). */
export const ARTIFACTS_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'test-results', 'browser');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why no browser test can run here, or undefined when Chromium is installed. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  return `no Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (as .ci/run does) or point CHROMIUM at one`;
}

/**
 * A headless Chromium. Playwright gives every launch a fresh profile folder of its own (and refuses
 * --user-data-dir in launch()), removed when the browser closes.
 */
export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}
