/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native-ish and WASM packages run as plain Node modules on the server.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "@prisma/driver-adapter-utils",
    "pg",
  ],
  // A separate build folder per checkout or parallel run (NEXT_DIST_DIR=.next-foo).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    serverActions: { bodySizeLimit: "25mb" },
  },
};

export default nextConfig;
