/**
 * Issue 23, short: the cluster as compose runs it under the mixed player load (16 clients, 11 operations;
 * bench/player-load.ts), killed with SIGKILL and started again at once: the library group (the one most
 * of the load reads), then one of the two gateways. No read fails (a repeat-safe call lost with its node
 * is repeated on the restarted one; a request that could not reach the killed gateway goes to the other,
 * so that kill fails no request at all); no write acknowledged is lost, and a write that answered an
 * error (in flight on the killed library node) was applied once at most. The long run
 * (6 random kills in 5 minutes) is bench/kill.bench.ts.
 */
import { killRun } from "../../bench/kill-run";
import { findNatsServer } from "../helpers/processes";

const describeCluster = findNatsServer() ? describe : describe.skip;

describeCluster("kill -9 under the mixed player load", () => {
  test("a killed library node and a killed gateway fail no read and lose no acknowledged write", async () => {
    const { report, wrong, kills, gatewayErrors } = await killRun({ kills: 2, intervalMs: 15_000, targets: ["library", "gateway-1"] });
    if (report.readFailures.length) console.error(gatewayErrors.join("\n"));
    expect(kills.map((k) => k.group)).toEqual(["library", "gateway-1"]);
    expect(report.readFailures).toEqual([]);
    expect(report.writeFailures).toEqual([]);
    expect(wrong).toEqual([]);
    // With two gateways, the one killed fails nothing that could go elsewhere: a request that could not reach it,
    // or a repeat-safe one whose connection broke, went to the other. Only a write that is not safe to repeat and
    // was in flight on it when it died answers without an answer (status 0, as a load balancer's 502), nothing else.
    const afterGatewayKill = report.writeErrorLog.filter((e) => e.at >= kills[1].time);
    expect(afterGatewayKill.filter((e) => e.repeatSafe || e.status !== 0 || e.started > kills[1].time)).toEqual([]);
    expect(report.readLatencies.length).toBeGreaterThan(500);
  }, 150_000);
});
