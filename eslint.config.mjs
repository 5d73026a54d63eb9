import nextPlugin from "@next/eslint-plugin-next";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".next/**",
      ".next-*/**",
      "lib/db/generated/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
      "**/__fixtures__/**",
      "**/*.mjs",
      "**/*.js",
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@next/next": nextPlugin },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@next/next/no-html-link-for-pages": "off",
    },
  },
  {
    // Test doubles implement async interfaces without awaiting anything.
    files: ["**/*.test.ts", "e2e/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/require-await": "off" },
  },
  {
    // The engine is a pure library: no framework, no database, no app code.
    files: ["lib/replay/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["next", "next/*"], message: "lib/replay is pure: no Next." },
            { group: ["react", "react-dom", "react/*"], message: "lib/replay is pure: no React." },
            { group: ["@prisma/*", "prisma", "pg", "@electric-sql/*"], message: "lib/replay is pure: no database." },
            {
              group: ["@/app/*", "@/components/*", "@/lib/db", "@/lib/db/*"],
              message: "lib/replay may not import the app.",
            },
            {
              group: ["node:fs", "node:fs/*", "node:http", "node:net", "fs", "http", "net"],
              message: "lib/replay does no I/O.",
            },
          ],
        },
      ],
    },
  },
  {
    // Everything else reaches the engine through its one entry point.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/db/**/*.ts", "lib/ingest/**/*.ts", "e2e/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/lib/replay/*"], message: "Import the engine from @/lib/replay (its index) only." }] },
      ],
    },
  },
);
