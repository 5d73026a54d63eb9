import { existsSync } from "node:fs";

/**
 * Debian's Chromium, started so it dials no host outside this machine (STACK.md). Playwright adds --headless itself.
 * Debian's `chromium-headless-shell` (the headless-only build, what Playwright itself runs headless by default) when
 * it is installed, else the full browser. The browser and its children's CPU over policies.spec and sessions.spec,
 * one round each at load 12–17 (a cpuacct cgroup around the browser): the full browser headless 129 CPU-s, the shell
 * 93 (84 without the traces' DOM snapshots); by process accounting, an earlier round: 115 and 93. `.ci/run` installs
 * both; the full browser is for looking at pages by hand.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");
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
