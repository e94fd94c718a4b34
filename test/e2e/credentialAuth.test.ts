/**
 * The credential authenticates with a function (no expression per request). Proved two ways:
 * n8n 2.40.7's own CredentialsHelper.authenticate applies the packed credential and the generic
 * `={{$credentials.apiKey}}` header it replaced to the same request options, on both expression
 * engines, with identical results; and a real n8n's HTTP Request node with our credential type
 * (predefined credential type, as the bench's HTTP Request contender uses it) is accepted by the
 * service with the same x-api-key as our node.
 */
import { join } from 'node:path';

import { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { maskedSecret } from '../../harness/sandboxClient';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, chain } from '../../harness/workflows';
import { installedPackage, runInN8nNode } from './support';

jest.setTimeout(240_000);

/** Run by runInN8nNode (n8n's own Node 24 and modules): both credential forms through n8n's CredentialsHelper. */
const SCRIPT = String.raw`
const { Workflow } = require(path.join(modules, 'n8n-workflow'));
const { CredentialsHelper } = require(path.join(modules, 'n8n', 'dist', 'credentials-helper.js'));
const { ClearinghouseApi } = require(input); // the packed credential file

async function main() {
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
	return { out };
}
`;

describe('the credential authenticates without an expression', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;

	beforeAll(async () => {
		stage = await startSandboxStage({ allowLoopbackWebhooks: true });
		n8n = await N8nInstance.create();
	});
	afterAll(() => stopAll(n8n, stage?.sandbox));

	test.each(['legacy', 'vm'])('n8n’s CredentialsHelper gives the same request options as the generic header (%s engine)', async (engine) => {
		const credentialFile = join(installedPackage(n8n), 'dist', 'credentials', 'ClearinghouseApi.credentials.js');
		const result = await runInN8nNode<{ out: Array<{ apiKey: string; generic: string; fn: string; genericInPlace: boolean; fnInPlace: boolean }> }>(
			SCRIPT,
			credentialFile,
			engine,
		);
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
		const credential = sandboxCredential(stage.sandbox);
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
						url: `${stage.sandbox.mainUrl}/api/v1/account/limits`,
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
		const mark = await stage.operator.mark();
		const result = await n8n.execute(workflow.id);
		expect(result.code).toBe(0);
		const seen = (await stage.operator.requests(mark)).filter((r) => r.path === '/api/v1/account/limits');
		expect(seen.map((r) => r.status)).toEqual([200, 200]);
		// The request log keeps a key masked (its last characters and a fingerprint: sandbox/traffic.ts).
		expect(seen.map((r) => r.headers['x-api-key'])).toEqual([maskedSecret(stage.sandbox.apiKey), maskedSecret(stage.sandbox.apiKey)]);
	});
});
