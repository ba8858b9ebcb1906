/** The first load of the web app stays within its budget (sizes, not times: the same on every machine). */
import { config } from "../../shared/config";
import { firstLoad, FIRST_LOAD_BUDGET_GZ, onDemand } from "../../shared/web-budget";
import { assertWebBuilt } from "../helpers/web";

test("the first load's JS and CSS are at most 150 KB gzipped; the pages' code loads on demand", () => {
  assertWebBuilt();
  const first = firstLoad(config.webDir);
  expect(first.some((f) => f.file.endsWith(".js"))).toBe(true);
  expect(first.reduce((s, f) => s + f.gzip, 0)).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_GZ);
  // Each page of the router is a chunk of its own, none of them in the first load.
  const later = onDemand(config.webDir).map((f) => f.file);
  for (const page of ["podcasts", "episode", "settings", "admin", "queue"])
    expect(later.some((f) => new RegExp(`assets/${page}-[\\w-]+\\.js$`).test(f))).toBe(true);
});
