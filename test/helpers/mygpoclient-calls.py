"""
Calls of gPodder's own client library (mygpoclient, Debian python3-mygpoclient) against the server at SERVER as
USERNAME / PASSWORD. Standard input is a JSON list of calls, each [method, arg, ...]:
  ["pull_subscriptions", device, since]          -> {"add", "remove", "since"}
  ["update_subscriptions", device, add, remove]  -> {"since", "update_urls"}
  ["download_episode_actions", since]            -> {"actions": [action as the library reads it], "since"}
  ["upload_episode_actions", [action dict, ...]] -> {"since"}
  ["get_subscriptions", device]                  -> the simple API's list of the device, as SimpleClient reads it
It prints one JSON list, what the library made of each answer, for the calling test to compare exactly; a call
the library refuses (an answer it cannot read, an HTTP error) ends the script non-zero with the reason.
"""
import json
import os
import sys

from mygpoclient import api, simple

server = os.environ["SERVER"]
username = os.environ["USERNAME"]
password = os.environ["PASSWORD"]
client = api.MygPodderClient(username, password, root_url=server)
simple_client = simple.SimpleClient(username, password, root_url=server)


def run(method, *args):
    if method == "pull_subscriptions":
        changes = client.pull_subscriptions(*args)
        return {"add": changes.add, "remove": changes.remove, "since": changes.since}
    if method == "update_subscriptions":
        result = client.update_subscriptions(args[0], add_urls=args[1], remove_urls=args[2])
        return {"since": result.since, "update_urls": [list(u) for u in result.update_urls]}
    if method == "download_episode_actions":
        changes = client.download_episode_actions(since=args[0])
        return {"actions": [a.to_dictionary() for a in changes.actions], "since": changes.since}
    if method == "upload_episode_actions":
        return {"since": client.upload_episode_actions([api.EpisodeAction.from_dictionary(d) for d in args[0]])}
    if method == "get_subscriptions":
        return simple_client.get_subscriptions(*args)
    raise ValueError("unknown call: %s" % method)


print(json.dumps([run(*call) for call in json.load(sys.stdin)]))
