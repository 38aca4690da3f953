// A node:test reporter that writes nothing while the suite runs and, at its end, each failed test (its name, its file
// and the first lines of its error). scripts/test.mjs prints this list after the TAP output, so that a failure among
// 1,800 tests shows at the end of a CI log instead of somewhere in its middle. (The suites a test sits in are not
// named: a file's suites run side by side and their events interleave; the TAP output above has the whole tree.)
import { inspect } from 'node:util';
import { slowestLines } from './durations-reporter.mjs';

const MAX_ERROR_LINES = 12;

function describeError(error) {
  // A test's own failure arrives wrapped (ERR_TEST_FAILURE) with what was thrown as its cause.
  const inner = error?.cause ?? error;
  const text = typeof inner?.stack === 'string' ? inner.stack : inspect(inner, { depth: 3 });
  // Node's own frames say nothing about the test.
  const lines = text.split('\n').filter((l) => !/\(node:|at node:/.test(l));
  return lines.slice(0, MAX_ERROR_LINES);
}

export default async function* failures(source) {
  const failed = [];
  // With TEST_SLOWEST=N, the N slowest files are listed after the failures (scripts/durations-reporter.mjs).
  const timed = process.env.TEST_SLOWEST ? [] : null;
  for await (const event of source) {
    if (timed && (event.type === 'test:pass' || event.type === 'test:fail')) timed.push(event);
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite whose subtests failed fails too; the subtests are listed themselves.
    if (details?.error?.failureType === 'subtestsFailed') continue;
    failed.push({ name, where: file ?? '(unknown file)', error: details?.error });
  }
  if (failed.length > 0) {
    yield `\n# ${failed.length} failed:\n`;
    for (const { name, where, error } of failed) {
      yield `# - ${name}\n#   in ${where}\n`;
      for (const text of describeError(error)) yield `#     ${text}\n`;
    }
  }
  if (timed) yield* slowestLines(timed);
}
