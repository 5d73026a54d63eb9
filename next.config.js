const isDev = process.env.NODE_ENV === "development";

const maxBodyEnv = Number(process.env.BRANCHPOINT_MAX_BODY_BYTES);
/** BRANCHPOINT_MAX_BODY_BYTES as lib/env.ts reads it (the same default; a test holds the two together). */
export const MAX_BODY_BYTES = Number.isSafeInteger(maxBodyEnv) && maxBodyEnv > 0 ? maxBodyEnv : 20 * 1024 * 1024;

/**
 * How far past MAX_BODY_BYTES the proxy keeps a body. Every request passes proxy.ts, and Next copies the body
 * for it, keeping at most proxyClientMaxBodySize bytes for the route: when a piece of the body would cross that
 * mark, Next drops the whole piece and ends the body there, as if it were complete. A chunked body (no
 * Content-Length) cut like that can be anything up to one piece short of the mark, so with the mark one byte past
 * the limit a 25 MB upload reached the route as 19.9 MB, read as complete: 71 of 420 JSONL sessions were lost
 * without a word, a JSON document was "malformed". Node reads a connection 64 KiB at a time, so a piece is never
 * larger than that; with the mark 1 MiB past the limit, a body Next cut still holds more than MAX_BODY_BYTES, and
 * the route's own count answers it with 413 (lib/http/api.ts readBodyBytes). A body within the limit is never cut.
 */
export const PROXY_BODY_SLACK = 1024 * 1024;

/**
 * Every page and route: no framing anywhere (clickjacking), scripts, styles,
 * workers and fonts from this server only (Next's inline bootstrap scripts and
 * Monaco's injected styles need 'unsafe-inline'; Monaco's workers are bundled
 * files, blob: covers its fallback), no plugins, no <base> rewriting.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native-ish and WASM packages run as plain Node modules on the server.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "@prisma/driver-adapter-utils",
    "pg",
    "pg-boss",
  ],
  // A separate build folder per checkout or parallel run (NEXT_DIST_DIR=.next-foo).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  // Type-checking is the test suite's job (`npm test` runs tsc first), not a start-up step: the build skips it,
  // which takes a minute and a half off the first start and off every CI run on two cores.
  typescript: { ignoreBuildErrors: true },
  // Shared reports are for the people they are sent to, not for search engines or referrers.
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      {
        source: "/share/:path*",
        headers: [
          { key: "X-Robots-Tag", value: "noindex, nofollow, noarchive" },
          { key: "Referrer-Policy", value: "no-referrer" },
        ],
      },
    ];
  },
  experimental: {
    // An action's body also passes the proxy, so it keeps the same limit: past it Next refuses the action itself,
    // where a larger limit would let it decode a body the proxy had cut.
    serverActions: { bodySizeLimit: MAX_BODY_BYTES },
    // Next gives a route at most this much of a body (10 MB unless set): see PROXY_BODY_SLACK.
    proxyClientMaxBodySize: MAX_BODY_BYTES + PROXY_BODY_SLACK,
    // Next 16.4 writes Turbopack's cache to disk after every production build by default: 81 s on two busy cores,
    // for a cache that a first start and a clean CI clone never read again.
    turbopackFileSystemCacheForBuild: false,
  },
};

export default nextConfig;
