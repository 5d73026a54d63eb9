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
  },
};

export default nextConfig;
