/** Jest runs the TypeScript sources through ts-jest; the cluster tests spawn the compiled dist/. */
const base = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: {
    "^.+\\.[tj]sx?$": [
      "ts-jest",
      {
        tsconfig: {
          allowJs: true,
          esModuleInterop: true,
          noImplicitAny: false,
          strict: true,
          target: "ES2022",
          module: "commonjs",
          skipLibCheck: true,
          types: ["node", "jest"],
        },
        diagnostics: false,
      },
    ],
  },
  // ESM-only dependencies (openid-client, otplib's nested @noble and their crypto stack, music-metadata and its
  // tokenizer stack) are transformed to CommonJS for Jest.
  transformIgnorePatterns: [
    "/node_modules/(?!(openid-client|oauth4webapi|jose|@scure|@noble|oidc-provider|@otplib|music-metadata|strtok3|token-types|file-type|uint8array-extras|win-guid|media-typer|@borewit|@tokenizer)/)",
  ],
  // music-metadata and file-type export only "import" conditions, which Jest's CommonJS resolver skips: point at their node entries.
  moduleNameMapper: {
    "^music-metadata$": "<rootDir>/node_modules/music-metadata/lib/index.js",
    "^file-type$": "<rootDir>/node_modules/file-type/index.js",
  },
  setupFiles: ["<rootDir>/test/setup-env.ts"],
  testTimeout: 60000,
};

/**
 * Integration suites that run a second time on the MongoDB path (a set that reaches every service with a store
 * and the races; any other file runs the same way with TEST_STORE=mongo) (TEST_STORE=mongo: the official driver
 * against the wire double, test/helpers/mongo-wire.ts), each file then also checked for queries without an
 * index (test/helpers/mongo-indexes.ts). Left out: suites that read the embedded store's files or spawn
 * processes on DATA_DIR (backup, sync), or freeze the clock over a TTL (sharing).
 */
const ON_MONGO = ["foundation", "podcasts", "queue", "downloads", "recommendations", "gpodder-races", "feed-races", "task-races", "feed-moves", "inbox"];

module.exports = {
  projects: [
    { ...base, displayName: "embedded", testMatch: ["**/*.test.ts"] },
    {
      ...base,
      displayName: "mongo",
      testMatch: ON_MONGO.map((name) => `**/test/integration/${name}.test.ts`),
      setupFiles: ["<rootDir>/test/setup-env.ts", "<rootDir>/test/setup-mongo.ts"],
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/summary-reporter.js"],
};
