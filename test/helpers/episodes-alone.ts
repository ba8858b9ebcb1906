/** The episodes service alone in a broker of its own, on an in-memory store (the unit tests of its indexes). */
import { ServiceBroker } from "moleculer";
import { config } from "../../shared/config";
import EpisodesService from "../../services/episodes.service";
import { plainSchema } from "./schema";

export async function episodesAlone(): Promise<{ broker: ServiceBroker; svc: any }> {
  config.dataDir = ":memory:";
  const broker = new ServiceBroker({ logger: false });
  const svc = broker.createService(plainSchema(EpisodesService));
  await broker.start();
  return { broker, svc };
}
