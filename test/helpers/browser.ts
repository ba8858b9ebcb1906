/**
 * Real headless Chromium for the pages a person sees (Debian's chromium, driven by playwright-core,
 * which gives each launch a new temporary profile): CHROMIUM_PATH, else /usr/bin/chromium. No browser:
 * the suite fails loudly (.ci/run installs it).
 */
import fs from "fs";
import { chromium, Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
}
