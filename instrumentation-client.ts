import { z } from "zod";

/**
 * Runs in the browser before the app's code. zod compiles fast object parsers
 * with `new Function` unless told not to, and probes for it the first time a
 * schema is built; under our Content-Security-Policy (no 'unsafe-eval') that
 * probe is reported as a violation. The browser parses small documents, so the
 * interpreted parser costs nothing a user notices.
 */
z.config({ jitless: true });
