import nextPlugin from "@next/eslint-plugin-next";
import tseslint from "typescript-eslint";

const ENGINE_ENTRY = { group: ["@/lib/replay/*"], message: "Import the engine from @/lib/replay (its index) only." };
const NO_UI = {
  group: ["@/components", "@/components/*", "@/app/*", "react", "react-dom", "react/*"],
  message: "Server code does not import UI: components take data from pages, never the other way.",
};
const NO_PRISMA = {
  group: ["@prisma/*", "prisma", "@/lib/db/generated", "@/lib/db/generated/*", "**/generated/client"],
  message: "Prisma stays in lib/db: call a lib/db function.",
};
const NO_SERVICES_FROM_DB = {
  group: ["@/lib/server", "@/lib/server/*", "@/lib/executors/*", "@/lib/policies/*"],
  message: "lib/db is the bottom layer: it does not import the operations above it.",
};
const NO_ADAPTERS_FROM_DB = {
  group: ["@/lib/http", "@/lib/http/*", "next", "next/*"],
  message: "lib/db does not import the HTTP adapters or Next; throw AppError from @/lib/errors.",
};
const NO_INGEST_FROM_DB = {
  group: ["@/lib/ingest", "@/lib/ingest/*"],
  allowTypeImports: true,
  message:
    "lib/db keeps SQL only: parsing and planning (lib/ingest) run in lib/server, which hands lib/db the rows to write.",
};
const NO_ADAPTERS = {
  group: ["@/lib/http", "@/lib/http/*", "next", "next/*"],
  message: "Operations do not import the adapters (lib/http) or Next; they take a principal and parsed input.",
};
/** app/ holds the routes and nothing else imports them; what they share lives in lib/ (server actions in lib/actions). */
const NO_APP = {
  group: ["@/app", "@/app/*", "**/app/(*", "**/app/api/*", "**/app/v1/*", "**/app/share/*"],
  message: "Nothing outside app/ imports from app/: move what is shared to lib/ (server actions to lib/actions).",
};
const SERVER_TYPES_ONLY = {
  group: ["@/lib/db", "@/lib/db/*", "@/lib/server", "@/lib/server/*", "@/lib/http/api", "@/lib/http/page"],
  allowTypeImports: true,
  message: "Components run in the browser too: import only types from the server side; call server actions.",
};
/**
 * Prisma stays in lib/db: outside it, no property of a Prisma client or transaction is read or called
 * (`prisma.user.findMany`, `tx.$queryRaw`, `client.$transaction`), whatever the variable is named and whichever
 * model it names. A client is recognised by its type (it has `$queryRaw`); passing one on to a lib/db function is fine.
 */
const noPrismaOutsideDb = {
  meta: {
    type: "problem",
    messages: { call: "Prisma calls stay in lib/db: call a lib/db function (here: '{{name}}')." },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program) return {};
    const checker = services.program.getTypeChecker();
    const isClient = (node) => {
      const type = checker.getApparentType(services.getTypeAtLocation(node));
      return type.getProperty("$queryRaw") !== undefined && type.getProperty("$executeRaw") !== undefined;
    };
    return {
      MemberExpression(node) {
        if (node.property.type !== "Identifier" || !isClient(node.object)) return;
        context.report({ node, messageId: "call", data: { name: context.sourceCode.getText(node).slice(0, 60) } });
      },
    };
  },
};
const LOCAL_RULES = { rules: { "no-prisma-outside-db": noPrismaOutsideDb } };

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "sdk/dist/**",
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
    // Every file outside app/; the blocks below that set their own patterns repeat NO_APP (or NO_UI, which holds it).
    files: ["**/*.{ts,tsx}"],
    ignores: ["app/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [NO_APP] }] },
  },
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@next/next": nextPlugin, branchpoint: LOCAL_RULES },
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
  // ---------------------------------------------------------------------------
  // Layer boundaries. The walk is one way: adapters (app/, lib/http) → operations
  // (lib/server) → data (lib/db) and the engine (lib/replay). Import cycles are
  // checked by scripts/import-graph.test.ts.
  {
    // The data layer: no services, no adapters, no UI, and of the ingest only types (it keeps SQL only).
    files: ["lib/db/**/*.ts"],
    ignores: ["lib/db/**/*.test.ts", "lib/db/replays-testing.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [ENGINE_ENTRY, NO_UI, NO_SERVICES_FROM_DB, NO_ADAPTERS_FROM_DB, NO_INGEST_FROM_DB] },
      ],
    },
  },
  {
    // A tests' helper: it stores demo sessions as the importers read them.
    files: ["lib/db/replays-testing.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_UI, NO_SERVICES_FROM_DB, NO_ADAPTERS_FROM_DB] }],
    },
  },
  {
    // Operations and the libraries under them: no UI, no adapters, no Prisma.
    files: [
      "lib/server/**/*.ts",
      "lib/executors/**/*.ts",
      "lib/policies/**/*.ts",
      "lib/reports/**/*.ts",
      "lib/sessions/**/*.ts",
      "lib/ingest/**/*.ts",
      "lib/errors.ts",
      "lib/env.ts",
      "lib/format.ts",
    ],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_UI, NO_PRISMA, NO_ADAPTERS] }],
    },
  },
  {
    // The adapters' helpers: no UI, no Prisma.
    files: ["lib/http/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_UI, NO_PRISMA] }],
    },
  },
  {
    // Server actions and route handlers: thin adapters over lib/server, no UI, no Prisma.
    files: ["lib/actions/**/*.ts", "app/**/route.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_UI, NO_PRISMA] }],
    },
  },
  {
    // Pages and components: no Prisma; components take data as props (types only from the server side).
    files: ["app/**/*.tsx"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_PRISMA] }],
    },
  },
  {
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_APP, NO_PRISMA, SERVER_TYPES_ONLY] }],
    },
  },
  {
    // The SDK's database tests run it against the app's real route handlers (app/…/agent/testing.ts).
    files: ["sdk/**/*.db.test.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY] }] },
  },
  {
    // The agent bench measures the app's real route handlers behind a local server, as the agent tests do.
    files: ["bench/agent.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_PRISMA] }] },
  },
  {
    // Tests and tools reach the engine through its entry point.
    files: ["e2e/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [ENGINE_ENTRY, NO_APP] }] },
  },
  {
    // The UI kit is the one place buttons and panels are styled: outside it, a raw
    // <button className=…> is a Button, and the panel class string is a Card (or CARD_CLASS).
    files: ["app/**/*.tsx", "components/**/*.tsx"],
    ignores: ["components/ui/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXOpeningElement[name.name='button'] > JSXAttribute[name.name='className']",
          message: "Use Button (or Tabs, ConfirmButton) from @/components/ui, not a styled raw <button>.",
        },
        {
          selector: "Literal[value=/rounded-lg border border-slate-200 bg-white(\\s|$)/]",
          message: "Use Card (or CARD_CLASS) from @/components/ui/Card, not its class string.",
        },
        {
          selector: "TemplateElement[value.raw=/rounded-lg border border-slate-200 bg-white(\\s|$)/]",
          message: "Use Card (or CARD_CLASS) from @/components/ui/Card, not its class string.",
        },
        {
          // The dark theme swaps the palette (app/globals.css), so a `dark:` colour swaps twice and lands back
          // on the light shade: dark text on the dark card.
          selector: "Literal[value=/(^|\\s)dark:(text|bg|border|ring|divide|placeholder)-/]",
          message: "Leave out dark: colours: the dark theme swaps the palette itself (app/globals.css).",
        },
      ],
    },
  },
  {
    // Prisma calls only in lib/db. Tests, their set-up helpers (testing.ts) and the tools in scripts/ and bench/
    // count and seed rows as they like.
    files: ["**/*.{ts,tsx}"],
    ignores: ["lib/db/**", "**/*.test.ts", "**/testing.ts", "e2e/**", "bench/**", "scripts/**"],
    rules: { "branchpoint/no-prisma-outside-db": "error" },
  },
);
