// Validates an OpenAPI document (JSON on stdin) against the official OpenAPI JSON schema of its version
// (bundled by @seriousme/openapi-schema-validator, 3.1 included). ESM-only, hence its own process.
// Prints { valid, version, errors }.
import { Validator } from "@seriousme/openapi-schema-validator";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
