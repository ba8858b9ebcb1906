/** Small HTTP client helpers for black-box tests: they speak to a running gateway over real HTTP. */
import request from "supertest";

export function api(url: string) {
  return request(url);
}

export function basic(username: string, password: string): string {
  return "Basic " + Buffer.from(`${username}:${password}`).toString("base64");
}

/** Every error the gateway sends has this JSON shape (house rule 5, docs/architecture.md). */
export function expectErrorBody(res: request.Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/application\/json/);
  expect(res.body).toEqual({ error: expect.any(String), message: expect.any(String), detail: expect.any(String), status_code: status });
}

/**
 * GET and POST as a named user of the test (their Api-Key), for suites whose server and users are
 * made in beforeAll: the target is read at call time.
 */
export function asUsers(target: () => { url: string; users: Record<string, { key: string }> }) {
  const keyOf = (who: string) => target().users[who].key;
  return {
    get: (path: string, who: string, query: Record<string, unknown> = {}) => api(target().url).get(path).query(query).set("Api-Key", keyOf(who)),
    post: (path: string, who: string, body: unknown) =>
      api(target().url)
        .post(path)
        .set("Api-Key", keyOf(who))
        .send(body as object),
  };
}
