// Lint for everything but the nodes package: the sandbox package (the tree's second product, published on its
// own as n8n-nodes-clearinghouse-sandbox) and the dev-only code (tests, the n8n harness, scripts, benchmarks).
// They may use node:http, undici and process, which the rules for shipped nodes forbid, so they get plain
// TypeScript rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', '.lint-stage/**', '.e2e/**', '.sandbox-package/**'] },
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['**/*.js', '**/*.mjs'],
		extends: [js.configs.recommended],
		languageOptions: {
			globals: {
				require: 'readonly',
				module: 'writable',
				exports: 'writable',
				process: 'readonly',
				console: 'readonly',
				__dirname: 'readonly',
				Buffer: 'readonly',
				setTimeout: 'readonly',
				URL: 'readonly',
			},
		},
	},
	{
		// The sandbox console runs in the browser.
		files: ['sandbox/console/**/*.js'],
		languageOptions: {
			globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', FormData: 'readonly', setInterval: 'readonly' },
		},
	},
);
