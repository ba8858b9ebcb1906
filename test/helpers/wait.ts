/** Polls a condition (sync or async) until it holds; throws when it does not within timeoutMs. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 30_000, stepMs = 50): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
