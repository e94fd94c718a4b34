// Prints one plain closing line, `jest: N passed, N failed, N skipped`, that CI can read
// whatever runner it knows.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const skipped = results.numPendingTests + results.numTodoTests;
		process.stdout.write(
			`\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
		);
	}
}
module.exports = SummaryReporter;
