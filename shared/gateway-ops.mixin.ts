/**
 * What operators and API clients need from a gateway besides its routes: GET /api/openapi.json (built
 * from the route table and the registry's param schemas), an interactive docs page at GET /api/docs
 * (Swagger UI from the swagger-ui-dist package, served from here, no CDN), and per-route request
 * metrics (count and latency by method, route pattern and status) next to Moleculer's per-action ones.
 */
import fs from "fs";
import path from "path";
import type { ServerResponse } from "http";
import type { ActionSchema, Service, ServiceSchema } from "moleculer";
import type { IncomingRequest } from "moleculer-web";
import { mixin } from "./service-types";
import { type ActionContract, buildOpenApi } from "./openapi";
import { config } from "./config";
import type { RouteDef } from "./types";

const UI_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
// Only these files are served (no path from the URL reaches the file system).
const UI_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css",
  "swagger-ui-bundle.js": "application/javascript",
  "swagger-ui-standalone-preset.js": "application/javascript",
  "favicon-32x32.png": "image/png",
};

const DOCS_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>${config.serviceName} API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#ui", deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });`;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer) {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-cache" });
  res.end(body);
}

/** The gateway route of these pages: put it before the main route in the gateway's settings.routes. */
export const docsRoute = {
  path: "/api",
  authentication: false,
  mappingPolicy: "restrict",
  autoAliases: false,
  logging: false, // requestLog (services/api.service.ts) logs every request; moleculer-web's lines are off
  aliases: {
    "GET openapi.json"(this: GatewayOpsThis, _req: IncomingRequest, res: ServerResponse) {
      send(res, 200, "application/json; charset=utf-8", JSON.stringify(this.openApiDocument()));
    },
    "GET docs"(_req: IncomingRequest, res: ServerResponse) {
      send(res, 200, "text/html; charset=utf-8", DOCS_PAGE);
    },
    "GET docs/:file"(req: IncomingRequest, res: ServerResponse) {
      const file: string = (req.$params as { file: string }).file;
      if (file === "init.js") return send(res, 200, "application/javascript", DOCS_INIT);
      const type = UI_FILES[file];
      if (!type)
        return send(res, 404, "application/json; charset=utf-8", JSON.stringify({ error: "not_found", message: "Not found", detail: file, status_code: 404 }));
      send(res, 200, type, fs.readFileSync(path.join(UI_DIR, file)));
    },
  },
};

/**
 * The document of a route table from action definitions (the registry's, or those of services created
 * but not started: scripts/openapi.ts). An upload action (RouteDef.upload) declares its form fields as
 * `multipart`: its params are the file stream.
 */
/** An action definition as the registry lists it, with the schemas this project puts on it (`multipart`, `response`). */
export type ActionDef = Pick<ActionSchema, "name" | "params"> & { name: string; multipart?: ActionSchema["params"]; response?: ActionContract["response"] };

export function openApiOf(table: Record<string, RouteDef>, actions: ActionDef[]) {
  const contracts = new Map(actions.map((a) => [a.name, { params: a.params ?? a.multipart, response: a.response }]));
  return buildOpenApi(table, (action) => contracts.get(action), { title: `${config.serviceName} API`, version: config.version });
}

/** What the mixin adds to the gateway's `this`. */
export interface GatewayOpsThis extends Service {
  openApiDocument(): ReturnType<typeof openApiOf>;
  observeRequest(req: IncomingRequest, status: number, ms: number): void;
}

export function gatewayOpsMixin(table: Record<string, RouteDef>): Partial<ServiceSchema> {
  return mixin<GatewayOpsThis>({
    name: "gateway-ops",
    created(this: GatewayOpsThis) {
      if (!this.broker.isMetricsEnabled()) return;
      this.broker.metrics.register({
        type: "counter",
        name: "api.request.total",
        labelNames: ["method", "route", "status"],
        description: "HTTP requests by route pattern and status",
      });
      this.broker.metrics.register({
        type: "histogram",
        name: "api.request.time",
        labelNames: ["method", "route"],
        unit: "millisecond",
        buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
        description: "HTTP request latency by route pattern",
      });
    },
    methods: {
      openApiDocument(this: GatewayOpsThis) {
        const actions = this.broker.registry.getActionList({ onlyAvailable: false, skipInternal: true, withEndpoints: false });
        return openApiOf(
          table,
          actions.map((a) => (a.action as ActionDef | undefined) ?? { name: a.name }),
        );
      },
      /** Called by the gateway's request log when a response is finished. */
      observeRequest(this: GatewayOpsThis, req: IncomingRequest, status: number, ms: number) {
        if (!this.broker.isMetricsEnabled()) return;
        // The alias pattern, not the URL: ids in paths would make one series per id.
        // moleculer-web's types leave out the alias's fullPath, which it sets.
        const route = (req.$alias as (typeof req.$alias & { fullPath?: string }) | undefined)?.fullPath ?? "unmatched";
        const labels = { method: req.method, route };
        this.broker.metrics.increment("api.request.total", { ...labels, status });
        this.broker.metrics.observe("api.request.time", ms, labels);
      },
    },
  });
}
