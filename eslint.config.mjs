// ESLint with typescript-eslint's type-checked rules (`npm run lint`; `npm test` runs it first).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "web/src/api-schema.d.ts", "**/*.js", "**/*.mjs", "**/*.cjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    // `const { secret: _secret, ...rest } = doc` leaves fields out of an answer without copying and deleting.
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // An async method without an await is how synchronous work (the embedded store) answers a Promise interface:
      // a throw becomes a rejection. The rule would have each such method wrap its body instead.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    files: ["test/**"],
    // Tests read JSON answers whose shape the suite already checks at run time against the response schemas (the test-time answer check).
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
);
