/**
 * Writes docs/openapi.json, the document GET /api/openapi.json serves, from the route table and the
 * actions of every service (created, not started: nothing listens, nothing is stored). `npm run openapi`
 * after changing a route, a param or a response schema; test/integration/openapi.test.ts fails while
 * the file and the running server disagree. The web app's client types (web/src/api-schema.d.ts) are generated from this file.
 */
import fs from "fs";
import path from "path";
import { ServiceBroker, ServiceSchema } from "moleculer";
import { routes } from "../services/api.routes";
import { type ActionDef, openApiOf } from "../shared/gateway-ops.mixin";

/** A created service's definitions as Moleculer keeps them (its types leave the specification out). */
interface SpecifiedService {
  _serviceSpecification: { actions: Record<string, ActionDef> };
}

const ROOT = path.join(__dirname, "..", "..");
export const OPENAPI_FILE = path.join(ROOT, "docs", "openapi.json");

/** The document as the file holds it. */
export function openApiText(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + "\n";
}

function main() {
  const serviceDir = path.join(__dirname, "..", "services");
  const broker = new ServiceBroker({ logger: false, transporter: null });
  const services = fs
    .readdirSync(serviceDir)
    .filter((f) => f.endsWith(".service.js"))
    .map((f) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- each compiled service file found at run time, loaded as moleculer-runner does
      const mod = require(path.join(serviceDir, f)) as ServiceSchema & { default?: ServiceSchema };
      return broker.createService(mod.default ?? mod);
    });
  const actions = services.flatMap((svc) => Object.values((svc as unknown as SpecifiedService)._serviceSpecification.actions));
  fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
  fs.writeFileSync(OPENAPI_FILE, openApiText(openApiOf(routes, actions)));
  console.log(`${Object.keys(routes).length} routes -> ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}

if (require.main === module) main();
