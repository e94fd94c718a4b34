/**
 * The credential authenticates with a function (no expression per request). Proved two ways:
 * n8n 2.40.7's own CredentialsHelper.authenticate applies the packed credential and the generic
 * `={{$credentials.apiKey}}` header it replaced to the same request options, on both expression
 * engines, with identical results; and a real n8n's HTTP Request node with our credential type
 * (predefined credential type, as the bench's HTTP Request contender uses it) is accepted by the
 * service with the same x-api-key as our node.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nInstance } from '../../harness/n8nProcess';
import { runtime } from '../../harness/runtime';
import { sandboxCredential, startSandbox, type SandboxHandle } from '../../harness/sandbox';
import { SandboxClient } from '../support/sandbox';
import { action, chain } from '../../harness/workflows';

jest.setTimeout(240_000);

/** Runs in n8n's own Node 24 with n8n's modules: both credential forms through n8n's CredentialsHelper. */
const SCRIPT = String.raw`
const path = require('node:path');
const [modules, credentialFile, engine] = process.argv.slice(2);
require(path.join(modules, 'reflect-metadata'));
const { Workflow, Expression } = require(path.join(modules, 'n8n-workflow'));
const { CredentialsHelper } = require(path.join(modules, 'n8n', 'dist', 'credentials-helper.js'));
const { ClearinghouseApi } = require(credentialFile);

(async () => {
	if (engine === 'vm') await Expression.initExpressionEngine({ engine: 'vm', poolSize: 1, maxCodeCacheSize: 1024, bridgeTimeout: 5000, bridgeMemoryLimit: 128 });
	const ours = new ClearinghouseApi();
	// The form this credential had before (n8n's generic authentication, one expression per request).
	const generic = Object.assign(new ClearinghouseApi(), {
		authenticate: { type: 'generic', properties: { headers: { 'x-api-key': '={{$credentials.apiKey}}' } } },
	});
	const helper = (type) => Object.assign(Object.create(CredentialsHelper.prototype), { credentialTypes: { getByName: () => type } });
	const node = { id: 'n1', name: 'HTTP Request', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [0, 0], parameters: {} };
	const nodeType = { description: { properties: [] } };
	const nodeTypes = { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) };
	const workflow = new Workflow({ id: 'w1', nodes: [node], connections: {}, active: false, nodeTypes, settings: {} });
	await workflow.expression.acquireIsolate();
	const keys = ['sk_live_0123456789abcdef', '', ' spaced key ', 'ключ-🔑', '12345', '={{ $json.x }}', '{{ 1 + 1 }}', 'a"b\\c'];
	const options = () => [
		{ method: 'GET', url: '/account/limits', baseURL: 'http://127.0.0.1:1/api/v1' },
		{ method: 'POST', url: '/payment', headers: { accept: 'application/json' }, body: { a: 1 }, json: true },
		{ method: 'GET', url: '/x', headers: { 'x-api-key': 'stale', accept: 'application/json' } },
	];
	const out = [];
	for (const apiKey of keys) {
		const credentials = { apiKey, baseUrl: 'http://127.0.0.1:1', rewardsUrl: '' };
		const before = options();
		const inputsA = options();
		const inputsB = options();
		for (let i = 0; i < before.length; i++) {
			const a = await helper(generic).authenticate({ ...credentials }, 'clearinghouseApi', inputsA[i], workflow, node);
			const b = await helper(ours).authenticate({ ...credentials }, 'clearinghouseApi', inputsB[i], workflow, node);
			out.push({ apiKey, input: before[i], generic: JSON.stringify(a), fn: JSON.stringify(b), genericInPlace: a === inputsA[i], fnInPlace: b === inputsB[i] });
		}
	}
	await workflow.expression.releaseIsolate();
	console.log(JSON.stringify({ engine: Expression.getActiveImplementation(), out }));
	await Expression.disposeExpressionEngine();
})().catch((error) => {
	console.error(error);
	process.exit(1);
});
`;

describe('the credential authenticates without an expression', () => {
	let sandbox: SandboxHandle;
	let operator: SandboxClient;
	let n8n: N8nInstance;
	let scratch: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ allowLoopbackWebhooks: true });
		operator = new SandboxClient(sandbox);
		n8n = await N8nInstance.create();
		scratch = mkdtempSync(join(tmpdir(), 'clearinghouse-credential-'));
	});
	afterAll(async () => {
		await n8n?.dispose();
		await sandbox?.close();
		if (scratch) rmSync(scratch, { recursive: true, force: true });
	});

	test.each(['legacy', 'vm'])('n8n’s CredentialsHelper gives the same request options as the generic header (%s engine)', async (engine) => {
		const script = join(scratch, 'authenticate.js');
		writeFileSync(script, SCRIPT);
		const credentialFile = join(
			n8n.userFolder,
			'.n8n',
			'nodes',
			'node_modules',
			'n8n-nodes-clearinghouse',
			'dist',
			'credentials',
			'ClearinghouseApi.credentials.js',
		);
		const { node, n8nModules } = runtime();
		const stdout = await new Promise<string>((resolve, reject) => {
			execFile(node, [script, n8nModules, credentialFile, engine], { timeout: 120_000, maxBuffer: 1 << 24 }, (error, out, err) =>
				error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
			);
		});
		const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
			engine: string;
			out: Array<{ apiKey: string; generic: string; fn: string; genericInPlace: boolean; fnInPlace: boolean }>;
		};
		expect(result.engine).toBe(engine);
		expect(result.out).toHaveLength(24);
		for (const row of result.out) {
			expect({ apiKey: row.apiKey, options: row.fn, inPlace: row.fnInPlace }).toEqual({
				apiKey: row.apiKey,
				options: row.generic,
				inPlace: row.genericInPlace,
			});
			expect(JSON.parse(row.fn).headers['x-api-key']).toBe(row.apiKey);
		}
	});

	test('the HTTP Request node with our credential type is accepted, with the same x-api-key as our node', async () => {
		const credential = sandboxCredential(sandbox);
		await n8n.importCredential(credential);
		const ref = { id: credential.id, name: credential.name };
		const workflow = chain(
			'e2eCredentialHttp1',
			'credential: HTTP Request node and our node',
			[
				{
					name: 'HTTP Request',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					credentials: { clearinghouseApi: ref },
					parameters: {
						method: 'GET',
						url: `${sandbox.mainUrl}/api/v1/account/limits`,
						authentication: 'predefinedCredentialType',
						nodeCredentialType: 'clearinghouseApi',
						options: {},
					},
				},
				{ ...action('Limits', 'account', 'getLimits'), executeOnce: true },
			],
			ref,
		);
		await n8n.importWorkflows([workflow]);
		const mark = await operator.mark();
		const result = await n8n.execute(workflow.id);
		expect(result.code).toBe(0);
		const seen = (await operator.requests(mark)).filter((r) => r.path === '/api/v1/account/limits');
		expect(seen.map((r) => r.status)).toEqual([200, 200]);
		expect(seen.map((r) => r.headers['x-api-key'])).toEqual([sandbox.apiKey, sandbox.apiKey]);
	});
});
