"""
Two devices of one user driven with gPodder's own client library (mygpoclient, Debian python3-mygpoclient),
against the server at SERVER as USERNAME / PASSWORD. FEEDS is a JSON list of feed URLs the server can fetch.
Each step asserts what the gPodder API documents; the script prints one JSON object of figures the
calling test checks further, and exits non-zero (with the failed assertion) on any difference.
"""
import json
import os
import sys
import time

from mygpoclient import api, http, simple
from mygpoclient.locator import Locator

server = os.environ["SERVER"]
username = os.environ["USERNAME"]
password = os.environ["PASSWORD"]
feeds = json.loads(os.environ["FEEDS"])
out = {}

client = api.MygPodderClient(username, password, root_url=server)

# Devices: created by their settings; only the keys given change.
assert client.update_device_settings("phone", caption="Phone", type="mobile") is True
assert client.update_device_settings("laptop", caption="Laptop", type="laptop") is True
assert client.update_device_settings("phone", caption="My phone") is True
devices = {d.device_id: d for d in client.get_devices()}
assert devices["phone"].caption == "My phone" and devices["phone"].type == "mobile", str(devices["phone"])
assert devices["laptop"].caption == "Laptop" and devices["laptop"].type == "laptop", str(devices["laptop"])

# Subscriptions: the phone adds three feeds (one written with spaces and an upper-case scheme and host:
# sanitized, and the rewrite reported), the laptop sees them.
messy = "  " + feeds[2].replace("http://127.0.0.1", "HTTP://127.0.0.1") + " "
up = client.update_subscriptions("phone", add_urls=[feeds[0], feeds[1], messy])
assert (messy, feeds[2]) in up.update_urls, up.update_urls
phone_since = up.since
laptop = client.pull_subscriptions("laptop", 0)
for f in feeds[:3]:
    assert f in laptop.add, (f, laptop.add)
assert laptop.remove == [], laptop.remove

# The laptop removes one: the phone gets exactly that change since its own upload, then nothing more.
removed = client.update_subscriptions("laptop", remove_urls=[feeds[1]])
phone = client.pull_subscriptions("phone", phone_since)
assert phone.add == [] and phone.remove == [feeds[1]], (phone.add, phone.remove)
assert phone.since >= removed.since
again = client.pull_subscriptions("phone", phone.since)
assert again.add == [] and again.remove == [], (again.add, again.remove)
# The laptop's own change does not come back to it.
own = client.pull_subscriptions("laptop", removed.since)
assert own.add == [] and own.remove == [], (own.add, own.remove)

# One feed added and removed in one request: 400, nothing stored.
try:
    client.update_subscriptions("phone", add_urls=[feeds[3]], remove_urls=[feeds[3]])
    raise AssertionError("adding and removing one feed was accepted")
except http.BadRequest:
    pass
assert feeds[3] not in client.pull_subscriptions("laptop", 0).add

# 1,000 episode actions in one call from the phone; the laptop downloads them all, then nothing new.
actions = [
    api.EpisodeAction(feeds[0], "%s/media/ep-%d.mp3" % (feeds[0].rsplit("/", 1)[0], i), "play",
                      device="phone", timestamp="2024-01-31T10:%02d:%02d" % (i // 60 % 60, i % 60), started=0, position=i + 1, total=3000)
    for i in range(1000)
]
uploaded = client.upload_episode_actions(actions)
got = client.download_episode_actions(since=0)
phone_actions = [a for a in got.actions if a.device == "phone"]
assert len(phone_actions) == 1000, len(phone_actions)
assert phone_actions[0].podcast == feeds[0] and phone_actions[0].position == 1 and phone_actions[0].total == 3000
assert got.since >= uploaded
assert client.download_episode_actions(since=got.since).actions == []
assert len(client.download_episode_actions(since=0, device_id="phone").actions) == 1000
assert client.download_episode_actions(since=0, podcast=feeds[1]).actions == []
out["actions_since"] = got.since

# A first sync's upload: BULK episode actions in one call (gPodder desktop sends all pending actions at once,
# over MAX_BODY_SIZE), all downloaded by the laptop; `since` from before it answers exactly them.
bulk = int(os.environ.get("BULK", "0"))
if bulk:
    many = [
        api.EpisodeAction(feeds[3], "%s/media/bulk-%d.mp3" % (feeds[3].rsplit("/", 1)[0], i), "play" if i % 4 else "download",
                          device="phone", timestamp="2023-%02d-%02dT%02d:%02d:00" % (i % 12 + 1, i % 28 + 1, i % 24, i % 60),
                          started=0 if i % 4 else None, position=i % 3000 + 1 if i % 4 else None, total=3600 if i % 4 else None)
        for i in range(bulk)
    ]
    started = time.monotonic()
    bulk_since = client.upload_episode_actions(many)
    out["bulk_upload_s"] = round(time.monotonic() - started, 2)
    started = time.monotonic()
    got = client.download_episode_actions(since=got.since)
    out["bulk_download_s"] = round(time.monotonic() - started, 2)
    assert len(got.actions) == bulk, len(got.actions)
    assert got.actions[-1].episode == many[-1].episode and got.actions[1].position == many[1].position, got.actions[1]
    assert got.since >= bulk_since
    assert client.download_episode_actions(since=got.since).actions == []
    assert len(client.download_episode_actions(since=0, podcast=feeds[3]).actions) == bulk

# Simple API: the same list in json (SimpleClient), txt and opml; a PUT replaces the device's list.
simple_client = simple.SimpleClient(username, password, root_url=server)
listed = simple_client.get_subscriptions("phone")
assert feeds[0] in listed and feeds[2] in listed and feeds[1] not in listed, listed
raw = http.HttpClient(username, password)
locator = Locator(username, server)
txt = raw.GET(locator.subscriptions_uri("phone", "txt")).decode("utf-8")
assert txt.splitlines() == listed, (txt, listed)
opml = raw.GET(locator.subscriptions_uri(None, "opml")).decode("utf-8")
assert "<opml" in opml and feeds[0] in opml, opml
assert simple_client.put_subscriptions("tablet", [feeds[0], feeds[2], feeds[4]]) is True
tablet = raw.GET(locator.subscriptions_uri("tablet", "txt")).decode("utf-8").splitlines()
assert sorted(tablet) == sorted([feeds[0], feeds[2], feeds[4]]), tablet
raw.PUT(locator.subscriptions_uri("tablet", "txt"), ("%s\n%s\n" % (feeds[0], feeds[4])).encode("utf-8"))
tablet = simple_client.get_subscriptions("tablet")
assert sorted(tablet) == sorted([feeds[0], feeds[4]]), tablet
try:
    simple_client.get_subscriptions("no-such-device")
    raise AssertionError("an unknown device's list was answered")
except http.NotFound:
    pass

out["subscriptions"] = sorted(tablet)
print(json.dumps(out))
