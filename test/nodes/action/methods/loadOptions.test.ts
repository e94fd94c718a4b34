/** The dropdowns fed by the API (methods/loadOptions.ts) and what they say when they cannot load (methods/listError.ts), over real HTTP against the sandbox. */
import { NodeOperationError } from 'n8n-workflow';

import { listSearch, loadOptions } from '../../../../harness/n8nContexts';
import { node, useEnv } from '../support';
import { sleeps } from '../../../support/sleep';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

const creds = () => ({ apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl });

describe('Supported Asset and dropdowns', () => {
	test('chain and asset dropdowns come from GET /supported-assets', async () => {
		const setup = { parameters: { resource: 'paymentOrder', operation: 'create' }, credentials: creds() };
		const chains = (await loadOptions(node, 'getChains', setup)) as any[];
		const assets = (await loadOptions(node, 'getAssets', setup)) as any[];
		const pairs = env.state.supportedAssets as Array<{ chain: string; symbol: string }>;
		expect(chains.map((c) => c.value)).toEqual([...new Set(pairs.map((p) => p.chain))].sort());
		expect(chains.map((c) => c.name)).toEqual(['Base', 'Ethereum', 'Solana']);
		expect(assets.map((a) => a.value)).toEqual([...new Set(pairs.map((p) => p.symbol))].sort());
	});

	test('the asset list follows the chosen chain (toChain, or deliveredChain for a ruleset)', async () => {
		await env.op('POST', '/reset', {});
		const pairs = env.state.supportedAssets as Array<{ chain: string; symbol: string }>;
		const on = (chain: string) =>
			pairs
				.filter((p) => p.chain === chain)
				.map((p) => p.symbol)
				.sort();
		const assetsFor = async (parameters: Record<string, string>) =>
			((await loadOptions(node, 'getAssets', { parameters, credentials: creds() })) as any[]).map((a) => a.value);
		expect(await assetsFor({ resource: 'paymentOrder', operation: 'create', toChain: 'solana' })).toEqual(on('solana'));
		expect(await assetsFor({ resource: 'receiveRuleset', operation: 'create', deliveredChain: 'base' })).toEqual(on('base'));
		expect(await assetsFor({ resource: 'paymentOrder', operation: 'create', toChain: '={{ $json.chain }}' })).toEqual(
			[...new Set(pairs.map((p) => p.symbol))].sort(),
		);
		const field = node.description.properties.find((p) => p.name === 'deliveredAsset');
		expect(field?.typeOptions).toEqual({ loadOptionsMethod: 'getAssets', loadOptionsDependsOn: ['deliveredChain'] });
	});

	// What n8n's editor shows of a dropdown's failure is the message alone (methods/listError.ts).
	test('with a wrong API key, Chain, Asset and From List fail naming the credential, its Base URL and what to do', async () => {
		const wrong = { ...creds(), apiKey: 'sk_wrong_key_for_this_test' };
		const setup = { parameters: { resource: 'paymentOrder', operation: 'create' }, credentials: wrong };
		for (const load of [() => loadOptions(node, 'getChains', setup), () => loadOptions(node, 'getAssets', setup)]) {
			const error = await load().then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			const { message } = error as Error;
			expect(message).toContain(
				`The Clearinghouse API at ${env.sb.mainUrl.replace(/\/+$/, '')} did not accept the API Key of the credential "Clearinghouse sandbox" (401)`,
			);
			expect(message).toMatch(/Open the credential, paste this account's API key/);
			expect(message).not.toContain('sk_wrong_key_for_this_test');
			// n8n's From List view splits a message at dashes and drops "check your credentials" sentences.
			expect(message.replace(/https?:\/\/\S+/g, '')).not.toMatch(/[-–—]|check\s+(your\s+)?credentials?/i);
		}
		// Loaded while the node had no credential yet (n8n 2.40.7 races a new node's lists against giving it one).
		const early = loadOptions(node, 'getChains', { ...setup, credentials: creds(), withoutCredential: true });
		await expect(early).rejects.toThrow(
			/^This list loaded while the node had no Clearinghouse credential\. .*if one is already shown there, close this node and open it again/,
		);
		const orders = listSearch(node, 'searchPaymentOrders', { parameters: { resource: 'paymentOrder', operation: 'get' }, credentials: wrong });
		await expect(orders).rejects.toThrow(/did not accept the API Key of the credential "Clearinghouse sandbox" \(401\)/);
	});

	test('with nothing at the Base URL, the dropdown says so and how to start the sandbox', async () => {
		const closed = { ...creds(), baseUrl: 'http://127.0.0.1:9' };
		sleeps.asked = [];
		await expect(loadOptions(node, 'getChains', { parameters: { resource: 'quote', operation: 'create' }, credentials: closed })).rejects.toThrow(
			'Nothing answered at http://127.0.0.1:9, the Base URL of the credential "Clearinghouse sandbox", so this list cannot load.',
		);
		// Tried four times, 0.5, 1 and 2 s apart (not waited here), as every read.
		expect(sleeps.asked).toEqual([500, 1000, 2000]);
	});
});
