/**
 * The web app's weight (issue 28: the first load's JavaScript and CSS at most 150 KB gzipped together; later
 * pages load their code on demand). Sizes of the build in dist/web (`npm run build`), gzipped at level 9 as the
 * gateway serves them.
 *
 *   npm run build && node dist/bench/web.bench.js
 */
import { config } from "../shared/config";
import { firstLoad, FIRST_LOAD_BUDGET_GZ, onDemand, type WebFileSize } from "../shared/web-budget";

const kb = (n: number) => (n / 1024).toFixed(1);
const line = (f: WebFileSize) => `  ${f.file.padEnd(40)} ${kb(f.bytes).padStart(7)} KB  ${kb(f.gzip).padStart(6)} KB gz`;

const first = firstLoad(config.webDir);
const later = onDemand(config.webDir).sort((a, b) => b.gzip - a.gzip);
const total = first.reduce((s, f) => s + f.gzip, 0);
console.log(`first load (${config.webDir}):`);
first.forEach((f) => console.log(line(f)));
console.log(`  total ${kb(total)} KB gz of a budget of ${kb(FIRST_LOAD_BUDGET_GZ)} KB (${((100 * total) / FIRST_LOAD_BUDGET_GZ).toFixed(0)}%)`);
console.log(`on demand (${later.length} files, ${kb(later.reduce((s, f) => s + f.gzip, 0))} KB gz in all):`);
later.forEach((f) => console.log(line(f)));
