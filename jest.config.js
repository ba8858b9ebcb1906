/** Jest runs the TypeScript sources through ts-jest; the cluster tests spawn the compiled dist/. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.[tj]sx?$": ["ts-jest", { tsconfig: { allowJs: true, esModuleInterop: true, noImplicitAny: false, strict: true, target: "ES2022", module: "commonjs", skipLibCheck: true, types: ["node", "jest"] }, diagnostics: false }] },
  // ESM-only dependencies (openid-client, otplib's nested @noble and their crypto stack, music-metadata and its
  // tokenizer stack) are transformed to CommonJS for Jest.
  transformIgnorePatterns: ["/node_modules/(?!(openid-client|oauth4webapi|jose|@scure|@noble|oidc-provider|@otplib|music-metadata|strtok3|token-types|file-type|uint8array-extras|win-guid|media-typer|@borewit|@tokenizer)/)"],
  // music-metadata and file-type export only "import" conditions, which Jest's CommonJS resolver skips: point at their node entries.
  moduleNameMapper: {
    "^music-metadata$": "<rootDir>/node_modules/music-metadata/lib/index.js",
    "^file-type$": "<rootDir>/node_modules/file-type/index.js",
  },
  setupFiles: ["<rootDir>/test/setup-env.ts"],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/summary-reporter.js"],
};
