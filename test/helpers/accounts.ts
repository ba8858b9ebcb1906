/** Accounts for suites that make a user per test: the first admin, then users with their own passwords and keys. */
import { api, basic } from "./client";

export interface TestAccount {
  id: number;
  name: string;
  password: string;
  /** A login key (get_key). */
  key: string;
}

/** create_first on a new server: the admin's login key. */
export async function createAdmin(url: string): Promise<string> {
  const first = await api(url)
    .post("/api/data/create_first")
    .send({ username: "root", password: "root password", email: "root@example.org", fullname: "Root" });
  if (first.status !== 200) throw new Error(`create_first: ${first.status} ${JSON.stringify(first.body)}`);
  return (await api(url).get("/api/data/get_key").set("Authorization", basic("root", "root password"))).body.retrieved_key;
}

/** A user named `name` with the password "<name> password", logged in once. */
export async function addAccount(url: string, adminKey: string, name: string): Promise<TestAccount> {
  const password = `${name} password`;
  const res = await api(url)
    .post("/api/data/add_user")
    .set("Api-Key", adminKey)
    .send({ fullname: name, username: name, email: `${name}@example.org`, hash_pw: password });
  if (res.status !== 200) throw new Error(`add_user: ${res.status} ${JSON.stringify(res.body)}`);
  const key = (await api(url).get("/api/data/get_key").set("Authorization", basic(name, password))).body.retrieved_key as string;
  return { id: res.body.user_id, name, password, key };
}
