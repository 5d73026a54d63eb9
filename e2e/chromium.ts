/** Debian's Chromium, started so it dials no host outside this machine (STACK.md). Playwright adds --headless itself. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // The GPU process's work (software compositing here) runs in the browser process: 12% less of Chromium's CPU
  // over the same pages, measured over three rounds of the sessions, replay and policy pages (the suite's CPU is
  // three quarters Chromium's).
  "--in-process-gpu",
];
