// A node:test reporter that writes nothing while the suite runs and, at its end, each failed test (its suites and name,
// file, and the first lines of its error). scripts/test.mjs prints this list after the TAP output, so that a
// failure among 1,800 tests shows at the end of a CI log instead of somewhere in its middle.
const MAX_ERROR_LINES = 12;

function describeError(error) {
  // A test's own failure arrives wrapped (ERR_TEST_FAILURE) with what was thrown as its cause.
  const inner = error?.cause ?? error;
  const text = inner instanceof Error ? (inner.stack ?? inner.message) : String(inner);
  // Node's own frames say nothing about the test.
  const lines = text.split('\n').filter((l) => !/\(node:|at node:/.test(l));
  return lines.slice(0, MAX_ERROR_LINES);
}

export default async function* failures(source) {
  const failed = [];
  // The names of the suites a test sits in, per file (files run side by side and their events interleave).
  const open = new Map();
  for await (const event of source) {
    const { name, nesting, file, details } = event.data ?? {};
    if (event.type === 'test:start') {
      const names = open.get(file) ?? [];
      names.length = nesting;
      names.push(name);
      open.set(file, names);
      continue;
    }
    if (event.type !== 'test:fail') continue;
    // A suite whose subtests failed fails too; the subtests are listed themselves.
    if (details?.error?.failureType === 'subtestsFailed') continue;
    const path = [...(open.get(file) ?? []).slice(0, nesting), name].join(' > ');
    failed.push({ name: path, where: file ?? '(unknown file)', error: details?.error });
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed:\n`;
  for (const { name, where, error } of failed) {
    yield `# - ${name}\n#   at ${where}\n`;
    for (const text of describeError(error)) yield `#     ${text}\n`;
  }
}
