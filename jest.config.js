/** Jest runs the TypeScript sources through ts-jest; the cluster tests spawn the compiled dist/. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.[tj]sx?$": ["ts-jest", { tsconfig: { allowJs: true, esModuleInterop: true, noImplicitAny: false, strict: true, target: "ES2022", module: "commonjs", skipLibCheck: true, types: ["node", "jest"] }, diagnostics: false }] },
  // ESM-only dependencies (openid-client, otplib's nested @noble and their crypto stack, music-metadata and its
  // tokenizer stack) are transformed to CommonJS for Jest.
  transformIgnorePatterns: ["/node_modules/(?!(openid-client|oauth4webapi|jose|@scure|@noble|oidc-provider|@otplib|music-metadata|strtok3|token-types|file-type|uint8array-extras|win-guid|media-typer|@borewit|@tokenizer)/)"],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/summary-reporter.js"],
};
