/** Repo, unit, sandbox and node tests run in-process against real HTTP servers; e2e, queue and compat run a real n8n. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.dev.json' }];
// .e2e/ holds staging builds of this package (its own package.json): not modules of this project.
const base = { testEnvironment: 'node', transform: { '^.+\\.ts$': tsJest }, modulePathIgnorePatterns: ['<rootDir>/.e2e/'] };
// n8n's packages, zod and undici loaded once per jest worker, not once per test file: test/support/oncePerWorker/environment.js.
const oncePerWorker = {
	testEnvironment: '<rootDir>/test/support/oncePerWorker/environment.js',
	moduleNameMapper: Object.fromEntries(
		['n8n-core', 'n8n-workflow', 'zod', 'undici'].map((name) => [`^${name}$`, `<rootDir>/test/support/oncePerWorker/${name}.js`]),
	),
};
module.exports = {
	// A bound, not a measurement: node tests make real HTTP calls, and jest's 5 s default was met by a
	// plain Submit Transactions test on a loaded machine. Suites that start n8n set their own, longer.
	testTimeout: 30_000,
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
	projects: [
		// The repository's hygiene: docs, links, examples, workflows, scripts, the lock file, the import direction, the map.
		{ ...base, ...oncePerWorker, displayName: 'repo', testMatch: ['<rootDir>/test/repo/**/*.test.ts'] },
		{ ...base, ...oncePerWorker, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
		{ ...base, ...oncePerWorker, displayName: 'sandbox', testMatch: ['<rootDir>/test/sandbox/**/*.test.ts'] },
		{ ...base, ...oncePerWorker, displayName: 'nodes', testMatch: ['<rootDir>/test/nodes/**/*.test.ts'] },
		{ ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
		{ ...base, displayName: 'queue', testMatch: ['<rootDir>/test/queue/**/*.test.ts'] },
		// The compatibility suite installs a second n8n (about 14 minutes the first time, on 2 CPU cores), so it
		// runs only through `npm run test:compat` (scripts/test-compat.sh sets the variable), not in `npm test`.
		...(process.env.CLEARINGHOUSE_COMPAT === '1' ? [{ ...base, displayName: 'compat', testMatch: ['<rootDir>/test/compat/**/*.test.ts'] }] : []),
	],
};
