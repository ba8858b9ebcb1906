/**
 * The "mongo" Jest project (jest.config.js): every test server of the file runs on the MongoDB path, the
 * official driver against the wire double of test/helpers/mongo-wire.ts (test/helpers/server.ts).
 */
process.env.TEST_STORE = "mongo";
