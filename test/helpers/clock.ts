/**
 * Moves the clock of the in-process server: only Date is faked (timers, I/O and microtasks run for real),
 * so expiry checks that compare with Date.now() see the time the test sets with jest.setSystemTime.
 * Undo with jest.useRealTimers().
 */
export function freezeClock(at: number) {
  jest.useFakeTimers({
    doNotFake: [
      "hrtime",
      "nextTick",
      "performance",
      "queueMicrotask",
      "requestAnimationFrame",
      "cancelAnimationFrame",
      "requestIdleCallback",
      "cancelIdleCallback",
      "setImmediate",
      "clearImmediate",
      "setInterval",
      "clearInterval",
      "setTimeout",
      "clearTimeout",
    ],
    now: at,
  });
}
