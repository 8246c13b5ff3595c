import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { CHROMIUM_PATH } from '../../helpers/paths.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

// Debian's Chromium (CHROMIUM_PATH); playwright-core downloads no browser of its own.

const INSTALL_HINT =
  `Chromium is not installed at ${CHROMIUM_PATH}: install it with ` +
  '`apt-get update && apt-get install -y chromium` (Debian/Ubuntu); the site tests drive a real browser';

/** Flags that keep a test browser quiet: no network of its own, no GPU, no sandbox in containers. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A running Chromium with a fresh profile; close() also removes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Debian's Chromium headless with a fresh user-data directory, or fails saying how to install it. */
export async function launchChromium(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(INSTALL_HINT);
  const profile = createTempDir('mmds-chromium-');
  // Playwright passes the profile as --user-data-dir itself; it refuses the flag in args.
  const context = await chromium.launchPersistentContext(join(profile.dir, 'profile'), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      profile.remove();
    },
  };
}
