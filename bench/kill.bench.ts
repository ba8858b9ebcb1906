/**
 * Kill-and-restart benchmark (issue 23): the cluster as compose runs it (every group a process over NATS,
 * the shared Redis cache, NeDB per service) under the mixed player load (16 clients, 11 operations), a
 * random non-gateway group killed with SIGKILL and started again at once every 45 s. Prints the requests
 * answered, the failed reads (0 expected), the writes that answered an error (each checked against the
 * state afterwards: applied once at most, never an acknowledged one lost) and the latencies. Not a test.
 *
 *   npm run build && node dist/bench/kill.bench.js [kills, default 6] [seconds between kills, default 45] [groups to kill in turn, e.g. library,accounts; default random]
 */
import { killRun } from "./kill-run";
import { percentile } from "./player-load";

async function main() {
  const kills = Number(process.argv[2] ?? 6);
  const interval = Number(process.argv[3] ?? 45);
  const targets = process.argv[4]?.split(",");
  console.log(`${kills} kills, one every ${interval} s, mixed player load of 16 clients\n`);
  const { report, wrong, kills: done, seconds, gatewayErrors } = await killRun({ kills, intervalMs: interval * 1000, targets, log: (l) => console.log(l) });
  const ms = (values: number[]) => `p50 ${percentile(values, 50)} ms, p99 ${percentile(values, 99)} ms, max ${Math.max(0, ...values)} ms`;
  console.log(`\n${seconds} s, killed: ${done.map((k) => `${k.group} at ${k.at} s`).join(", ")}`);
  console.log(`requests answered: ${report.requests}; reads ${report.readLatencies.length}, writes ${report.writeLatencies.length}`);
  console.log(`failed reads: ${report.readFailures.length}`);
  console.log(`writes answered an error (503 or connection lost, may have run): ${report.writeErrors}; other write failures: ${report.writeFailures.length}`);
  console.log(`state after the run contradicting an acknowledged write, or a write applied twice: ${wrong.length}`);
  console.log(`read latency: ${ms(report.readLatencies)}`);
  console.log(`write latency: ${ms(report.writeLatencies)}`);
  for (const f of [...report.readFailures, ...report.writeFailures, ...wrong].slice(0, 20)) console.log(`  ${f}`);
  if (gatewayErrors.length) console.log(`the gateways' failed requests (${gatewayErrors.length}):\n${gatewayErrors.slice(-20).join("\n")}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
