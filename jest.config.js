/** Unit, sandbox and node tests run in-process against real HTTP servers; e2e, queue and compat run a real n8n. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.dev.json' }];
// .e2e/ holds staging builds of this package (its own package.json): not modules of this project.
const base = { testEnvironment: 'node', transform: { '^.+\\.ts$': tsJest }, modulePathIgnorePatterns: ['<rootDir>/.e2e/'] };
module.exports = {
	// A bound, not a measurement: node tests make real HTTP calls, and jest's 5 s default was met by a
	// plain Submit Transactions test on a loaded machine. Suites that start n8n set their own, longer.
	testTimeout: 30_000,
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
	projects: [
		{ ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
		{ ...base, displayName: 'sandbox', testMatch: ['<rootDir>/test/sandbox/**/*.test.ts'] },
		{ ...base, displayName: 'nodes', testMatch: ['<rootDir>/test/nodes/**/*.test.ts'] },
		{ ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
		{ ...base, displayName: 'queue', testMatch: ['<rootDir>/test/queue/**/*.test.ts'] },
		// The compatibility suite installs a second n8n (about 14 minutes the first time, on 2 CPU cores), so it
		// runs only through `npm run test:compat` (scripts/test-compat.sh sets the variable), not in `npm test`.
		...(process.env.CLEARINGHOUSE_COMPAT === '1' ? [{ ...base, displayName: 'compat', testMatch: ['<rootDir>/test/compat/**/*.test.ts'] }] : []),
	],
};
