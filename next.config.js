const isDev = process.env.NODE_ENV === "development";

const maxBodyEnv = Number(process.env.BRANCHPOINT_MAX_BODY_BYTES);
/** BRANCHPOINT_MAX_BODY_BYTES as lib/env.ts reads it (the same default; a test holds the two together). */
export const MAX_BODY_BYTES = Number.isSafeInteger(maxBodyEnv) && maxBodyEnv > 0 ? maxBodyEnv : 20 * 1024 * 1024;

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
    serverActions: { bodySizeLimit: "25mb" },
    // Every request passes proxy.ts, and Next gives a route only the first proxyClientMaxBodySize bytes of its body
    // (10 MB unless set): a 12 MB import arrived cut short and was read as malformed. One byte past the import limit
    // lets the routes themselves answer a body that is too large.
    proxyClientMaxBodySize: MAX_BODY_BYTES + 1,
  },
};

export default nextConfig;
