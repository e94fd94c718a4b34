// Records one plain closing line, `jest: N passed, N failed, N skipped`, that CI can read whatever
// runner it knows. Jest prints its own last words after every reporter, so scripts/test.sh prints
// the line from JEST_SUMMARY_FILE once jest has exited.
const { writeFileSync } = require('node:fs');

class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		const line = `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`;
		if (process.env.JEST_SUMMARY_FILE) writeFileSync(process.env.JEST_SUMMARY_FILE, `${line}\n`);
		else process.stderr.write(`${line}\n`);
	}
}
module.exports = SummaryReporter;
