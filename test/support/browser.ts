import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

/** The browser tests drive Debian's Chromium (apt-get install chromium), never a downloaded one. */
export const CHROMIUM = '/usr/bin/chromium';

export interface HeadlessChromium {
  browser: Browser;
  /** Closes the browser and removes its profile directory. */
  close: () => Promise<void>;
}

/** Headless Chromium with a throwaway profile, kept off the network beyond what a page asks for. */
export async function launchChromium(): Promise<HeadlessChromium> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `The browser tests drive Debian's Chromium at ${CHROMIUM}, which is missing: install it (apt-get install chromium).`,
    );
  const userDataDir = mkdtempSync(join(tmpdir(), 'wsx-chromium-'));
  try {
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Without the background-networking flags Chromium waits on services it cannot reach.
      args: [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${userDataDir}`,
      ],
    });
    return {
      browser,
      close: async () => {
        await browser.close();
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
