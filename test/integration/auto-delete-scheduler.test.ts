/**
 * The downloads service's auto-delete job (services/downloads.parts/auto-delete.ts) over two downloads
 * replicas on two brokers joined by Moleculer's in-process transporter, sharing one downloads store and
 * one lease store (the MONGO_URI situation on the embedded store, as in feeds-scheduler.test.ts): what a
 * pass deletes, one holder at a time, and a second replica taking over from a holder that stopped
 * beating (killed: it never releases its lease) once the lease expires; a pass that cannot run (the podcasts
 * service not reachable, as while a cluster starts) neither ends the process nor counts as run.
 */
import fs from "fs";
import path from "path";
import { ServiceBroker } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { config } from "../../shared/config";
import DownloadsService from "../../services/downloads.service";
import EpisodesService from "../../services/episodes.service";
import FeedsService from "../../services/feeds.service";
import PodcastsService from "../../services/podcasts.service";
import TasksService from "../../services/tasks.service";
import UsersService from "../../services/users.service";
import { Loopback, startLoopback } from "../helpers/loopback";
import { fixture } from "../helpers/podcasts";
import { plainSchema } from "../helpers/schema";
import { tempDir } from "../helpers/server";

const DAY_MS = 86_400_000;
const LEASE = "auto-delete-scheduler";

describe("auto-delete of completed downloads over two replicas", () => {
  let loop: Loopback;
  let a: ServiceBroker;
  let b: ServiceBroker;
  let dlA: any;
  let dlB: any;
  let user_id: number;
  let podcast_id: number;
  let other_podcast: number;
  let episodes: number[];

  const broker = (nodeID: string) => new ServiceBroker({ ...brokerConfig, nodeID, namespace: `autodel-${process.pid}`, transporter: "Fake", logger: false });
  /** A downloaded file of an episode, downloaded `daysAgo` days ago. */
  async function download(episode_id: number, pid: number, daysAgo: number) {
    const file = `p${pid}/e${episode_id}.mp3`;
    fs.mkdirSync(path.join(config.downloadDir, `p${pid}`), { recursive: true });
    fs.writeFileSync(path.join(config.downloadDir, file), "audio");
    await a.call("downloads.record_download", { user_id, episode_id, podcast_id: pid, file, size: 5, content_type: "audio/mpeg" });
    await dlA.adapter.updateMany({ _id: `${user_id}:${episode_id}` }, { $set: { downloaded_at: new Date(Date.now() - daysAgo * DAY_MS) } });
  }
  const kept = async () => (await dlA.adapter.find({ query: { user_id } })).map((d: any) => d.episode_id).sort((x: number, y: number) => x - y);
  const holderOf = async () => (await dlA.stores.download_leases.findOne({ _id: LEASE })).holder;

  beforeAll(async () => {
    config.dataDir = ":memory:";
    config.downloadDir = tempDir("auto-delete-");
    config.refreshInterval = 0;
    config.autoDeleteInterval = 0; // no timer: the test beats; every beat of the holder runs a pass
    config.outboundAllowPrivate = "127.0.0.1/32";
    loop = await startLoopback((req, res) => void res.end(fixture("all_things_chemical_4items.xml").replace("All Things Chemical", `Feed ${req.url}`)));
    a = broker("a");
    b = broker("b");
    for (const schema of [
      plainSchema(UsersService),
      plainSchema(PodcastsService),
      plainSchema(EpisodesService),
      plainSchema(FeedsService),
      plainSchema(TasksService),
    ])
      a.createService(schema);
    dlA = a.createService(plainSchema(DownloadsService));
    dlB = b.createService(plainSchema(DownloadsService));
    await Promise.all([a.start(), b.start()]);
    await b.waitForServices(["podcasts", "episodes", "users", "tasks"]);
    // One downloads store and one lease store, as with MONGO_URI.
    dlB.adapter = dlA.adapter;
    dlB.stores = dlA.stores;
    user_id = ((await a.call("users.create_first", { fullname: "Ann", username: "ann", email: "ann@example.org", password: "a long password" })) as any)
      .user_id;
    podcast_id = ((await a.call("podcasts.add_custom_podcast", { feed_url: `${loop.url}/one.xml`, user_id })) as any).podcast_id;
    other_podcast = ((await a.call("podcasts.add_custom_podcast", { feed_url: `${loop.url}/two.xml`, user_id })) as any).podcast_id;
    const items: any = await a.call("episodes.podcast_episodes", { user_id, podcast_id });
    episodes = items.episodes.map((e: any) => e.episodeid);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await loop?.close();
  });

  test("a pass deletes downloads of completed episodes older than the podcast's days, and nothing else", async () => {
    const [oldDone, oldOpen, newDone] = episodes;
    const otherItems: any = await a.call("episodes.podcast_episodes", { user_id, podcast_id: other_podcast });
    const otherOld = otherItems.episodes[0].episodeid;
    await a.call("users.set_auto_download_delete_days", { user_id, days: 7 });
    await a.call("podcasts.set_podcast_auto_download_delete_days", { user_id, podcast_id: other_podcast, days: 0 }); // kept whatever its age
    for (const e of [oldDone, newDone, otherOld]) await a.call("episodes.mark_episode_completed", { user_id, episode_id: e });
    await download(oldDone, podcast_id, 8);
    await download(oldOpen, podcast_id, 30);
    await download(newDone, podcast_id, 2);
    await download(otherOld, other_podcast, 100);

    await dlA.autoDeleteJob.tick();
    await dlA.autoDeleteJob.pass;
    expect(await kept()).toEqual([oldOpen, newDone, otherOld].sort((x, y) => x - y));
    expect(fs.existsSync(path.join(config.downloadDir, `p${podcast_id}/e${oldDone}.mp3`))).toBe(false);
    expect(fs.existsSync(path.join(config.downloadDir, `p${podcast_id}/e${newDone}.mp3`))).toBe(true);
  });

  test("one holder at a time; a killed holder's lease expires and the other replica takes over the passes", async () => {
    expect(await holderOf()).toBe(dlA.autoDeleteJob.holder);
    const [, , newDone] = episodes;
    await dlA.adapter.updateMany({ _id: `${user_id}:${newDone}` }, { $set: { downloaded_at: new Date(Date.now() - 10 * DAY_MS) } });

    // A is killed: it beats no more and never releases. While its lease runs, B's beats do nothing.
    await dlB.autoDeleteJob.tick();
    expect(dlB.autoDeleteJob.pass).toBeNull();
    expect(await kept()).toContain(newDone);

    await dlA.stores.download_leases.updateMany({ _id: LEASE }, { $set: { expires_at: new Date(Date.now() - 1000) } }); // the lease ran out
    await dlB.autoDeleteJob.tick();
    expect(await holderOf()).toBe(dlB.autoDeleteJob.holder);
    await dlB.autoDeleteJob.pass;
    expect(await kept()).not.toContain(newDone);
  });

  test("no pass is due while the services a pass asks are not up yet; the lease is held and the rhythm not started", async () => {
    // A replica alone in its namespace: podcasts.auto_delete_rules is not found (a cluster's downloads node starting first).
    const alone = new ServiceBroker({ ...brokerConfig, nodeID: "alone", namespace: `autodel-alone-${process.pid}`, transporter: "Fake", logger: false });
    const dl: any = alone.createService(plainSchema(DownloadsService));
    await alone.start();
    try {
      await dl.autoDeleteJob.tick();
      expect(dl.autoDeleteJob.pass).toBeNull();
      const lease = await dl.stores.download_leases.findOne({ _id: LEASE });
      expect([lease.holder, lease.last_run_at]).toEqual([dl.autoDeleteJob.holder, null]);
    } finally {
      await alone.stop();
    }
  });
});
