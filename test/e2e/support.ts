/** What several e2e files share and nothing outside test/e2e uses. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Browser, CHROMIUM } from '../../harness/browser';
import { N8nInstance } from '../../harness/n8nProcess';
import { repoRoot, runtime } from '../../harness/runtime';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, type NodeSpec } from '../../harness/workflows';

/**
 * `describe` for the files that drive a real browser. chromium comes from `scripts/services.sh install`
 * (run by `npm test`), as PostgreSQL and Redis do; without it these files are skipped.
 */
export const describeBrowser = existsSync(CHROMIUM) ? describe : describe.skip;
/** Where the browser files keep their screenshots and other artefacts (git-ignored). */
export const SCREENSHOTS = join(repoRoot, '.e2e', 'screenshots');

/**
 * What a browser file runs against, started in its beforeAll: the sandbox stage (`options`), a new n8n (`n8nOptions`) that
 * `prepare` fills (credentials, workflows) before it starts, and chromium. What started is stopped again
 * when a later step fails; the file's afterAll stops the rest with `stopAll(browser, n8n, stage.sandbox)`.
 */
export async function startBrowserStage(
	options: Parameters<typeof startSandboxStage>[0],
	prepare: (n8n: N8nInstance, stage: SandboxStage) => Promise<unknown>,
	n8nOptions: Parameters<typeof N8nInstance.create>[0] = {},
): Promise<{ stage: SandboxStage; n8n: N8nInstance; browser: Browser }> {
	const stage = await startSandboxStage(options);
	let n8n: N8nInstance | undefined;
	try {
		n8n = await N8nInstance.create(n8nOptions);
		await prepare(n8n, stage);
		await n8n.start();
		return { stage, n8n, browser: await Browser.launch() };
	} catch (error) {
		await stopAll(n8n, stage.sandbox);
		throw error;
	}
}

/** Where `n8n` installed the packed package, as its community-node loader finds it. */
export const installedPackage = (n8n: N8nInstance): string => join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-clearinghouse');

/**
 * Runs a script in n8n's own Node 24 with n8n's modules, on one expression engine (`legacy` or `vm`), and
 * resolves with what it printed last (JSON) and the engine n8n reports it ran on. The script sees `path`,
 * `modules` (n8n's node_modules), `input` (the argument given here) and n8n-workflow's `Expression`, and
 * defines `async function main()`, whose result is printed; the engine is started before it and disposed after.
 */
export async function runInN8nNode<T>(script: string, input: string, engine: string, env?: NodeJS.ProcessEnv): Promise<T & { engine: string }> {
	const { node, n8nModules } = runtime();
	const folder = mkdtempSync(join(tmpdir(), 'clearinghouse-n8n-script-'));
	const file = join(folder, 'script.js');
	writeFileSync(
		file,
		`const path = require('node:path');
const [modules, input, engine] = process.argv.slice(2);
require(path.join(modules, 'reflect-metadata'));
const { Expression } = require(path.join(modules, 'n8n-workflow'));
${script}
(async () => {
	if (engine === 'vm') await Expression.initExpressionEngine({ engine: 'vm', poolSize: 1, maxCodeCacheSize: 1024, bridgeTimeout: 5000, bridgeMemoryLimit: 128 });
	const result = await main();
	console.log(JSON.stringify({ engine: Expression.getActiveImplementation(), ...result }));
	await Expression.disposeExpressionEngine();
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
`,
	);
	try {
		const stdout = await new Promise<string>((resolve, reject) => {
			execFile(node, [file, n8nModules, input, engine], { timeout: 120_000, maxBuffer: 1 << 24, env }, (error, out, err) =>
				error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
			);
		});
		return JSON.parse(stdout.trim().split('\n').at(-1)!) as T & { engine: string };
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

/**
 * Payment Order → Create as the e2e files pay: standard, from the seed's alice to bob's Ethereum wallet in
 * USDC, open for 60 minutes; `parameters` adds to these or replaces them, `node` sets the node's own fields.
 */
export function payBob(stage: SandboxStage, name: string, parameters: Record<string, unknown>, node: Record<string, unknown> = {}): NodeSpec {
	const order = {
		mode: 'standard',
		fromUserId: stage.alice.id,
		toAddress: stage.bobEth,
		toChain: 'ethereum',
		asset: 'USDC',
		expiry: 'inMinutes',
		expiresInMinutes: 60,
	};
	return action(name, 'paymentOrder', 'create', { ...order, ...parameters }, node);
}

/**
 * "Pay": Payment Order → Create paying each item it gets: standard, from the seed's alice to the item's `address`
 * on its `chain`, its `amount` in USDC; `parameters` adds to these or replaces them, `node` sets the node's own fields.
 */
export function payEachItem(stage: SandboxStage, parameters: Record<string, unknown>, node: Record<string, unknown> = {}): NodeSpec {
	const order = {
		mode: 'standard',
		fromUserId: stage.alice.id,
		toAddress: '={{ $json.address }}',
		toChain: '={{ $json.chain }}',
		asset: 'USDC',
		amountUsd: '={{ $json.amount }}',
	};
	return action('Pay', 'paymentOrder', 'create', { ...order, ...parameters }, node);
}
