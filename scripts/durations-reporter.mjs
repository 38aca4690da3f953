// A node:test reporter that writes nothing while the suite runs and, at its end, the test files that took longest:
// each file's time is the sum of its top-level tests and suites (what its process spent in them, its imports not
// counted). scripts/failures-reporter.mjs lists them after the failures when TEST_SLOWEST is set (the number of files;
// scripts/ci-tests.sh sets it), so that where the suite's time goes shows at the end of a CI log.
export function slowestFiles(events, count) {
  const perFile = new Map();
  for (const event of events) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file || typeof details?.duration_ms !== 'number') continue;
    perFile.set(file, (perFile.get(file) ?? 0) + details.duration_ms);
  }
  return [...perFile].sort((a, b) => b[1] - a[1]).slice(0, count);
}

/** The lines that list the slowest files of `events` (TEST_SLOWEST of them, 15 if it is not a number). */
export function* slowestLines(events) {
  const slowest = slowestFiles(events, Number(process.env.TEST_SLOWEST) || 15);
  if (slowest.length === 0) return;
  yield `\n# the ${slowest.length} slowest test files (seconds in their top-level tests):\n`;
  const cwd = process.cwd() + '/';
  for (const [file, ms] of slowest) {
    const name = file.startsWith(cwd) ? file.slice(cwd.length) : file;
    yield `# ${(ms / 1000).toFixed(1).padStart(8)}  ${name}\n`;
  }
}

export default async function* durations(source) {
  const events = [];
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') events.push(event);
  }
  yield* slowestLines(events);
}
