/**
 * Runs before every test file (jest.config.js setupFiles): the gateway checks every answer against its
 * route's response schema (shared/response-check.ts), in this process and in the cluster nodes the tests
 * spawn (they inherit this environment), so an answer that breaks its contract fails the test that asked.
 */
process.env.RESPONSE_SCHEMA_CHECK = "1";
