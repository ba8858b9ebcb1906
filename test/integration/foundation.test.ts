import { foundationScenario } from "../helpers/foundation.scenario";
import { startServer, TestServer } from "../helpers/server";

describe("foundation, embedded runtime (one process, NeDB files)", () => {
  let server: TestServer;
  const target = { url: "" };
  beforeAll(async () => {
    server = await startServer();
    target.url = server.url;
  });
  afterAll(() => server?.stop());

  foundationScenario(target);
});
