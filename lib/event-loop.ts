/**
 * A pause for long work in the web server's own process. The engine and the
 * embedded database answer in microtasks only, so a run of thousands of steps
 * never lets a timer or a new request in unless it stops to let them: the
 * returned function, called at each step boundary (cheap: one clock read),
 * gives the event loop a turn (setImmediate) once `everyMs` have passed since
 * the last one, and returns null otherwise.
 */
export function pauser(everyMs = 15): () => Promise<void> | null {
  let last = performance.now();
  return () => {
    if (performance.now() - last < everyMs) return null;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        last = performance.now();
        resolve();
      }),
    );
  };
}
