/**
 * Every write that sends a chain (and an asset) checks it against GET /supported-assets before it is
 * sent, as Payment Order → Create does (test/nodes/action/guarantees/serviceErrors.test.ts): Quote → Create,
 * Receive Ruleset → Create, User → Create or Update and Set Return Details (each wallet's chain). The error names the panel
 * field and its valid values, nothing is sent, the list is read once per run, and a list that cannot
 * be read sends nothing (fails closed). Following the message (a listed value) succeeds.
 */
import { NodeOperationError, type INodeParameters } from 'n8n-workflow';

import { walletOf } from '../../../harness/sandboxClient';
import { payment, ruleset, useEnv, type NodeEnv } from './support';

const env = useEnv();

const VALID_CHAINS = 'Valid chains: Base (base), Ethereum (ethereum), Solana (solana)';

const quote = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'quote',
	operation: 'create',
	toChain: 'ethereum',
	asset: 'USDC',
	amountUsd: '50',
	...extra,
});

const user = (wallets: Array<{ chain: string; address: string }>): INodeParameters => ({
	resource: 'user',
	operation: 'createOrUpdate',
	label: 'dave',
	wallets: { wallet: wallets },
});

async function refusal(parameters: INodeParameters): Promise<NodeOperationError> {
	try {
		await env.run(parameters);
	} catch (error) {
		expect(error).toBeInstanceOf(NodeOperationError);
		return error as NodeOperationError;
	}
	throw new Error('expected the node to fail');
}

const sent = async (e: NodeEnv) => (await e.requests({ withSupportedAssets: true })).map((r) => `${r.method} ${r.path}`);

describe.each([
	['Quote → Create', 'quote', () => quote({ toChain: 'tron', asset: 'USDT' }), () => quote(), 'POST /api/v1/quotes'],
	['Receive Ruleset → Create', 'ruleset', () => ruleset(env, { deliveredChain: 'tron', deliveredAsset: 'USDT' }), () => ruleset(env), 'POST /api/v1/rulesets'],
] as const)('%s', (operation, sends, unsupported, valid, post) => {
	test('an unsupported chain fails before the request is sent, naming the field and the valid chains; a valid chain succeeds', async () => {
		await env.mark();
		const error = await refusal(unsupported());
		const field = sends === 'quote' ? 'Chain' : 'Delivered Chain';
		expect(error.message).toBe(`${field} "tron" is not supported. ${VALID_CHAINS}`);
		expect(error.description).toBe(
			`Nothing was sent for this item. ${operation} reads the supported chains and assets (GET /supported-assets) once per run and sends no ${sends} whose pair it cannot check.`,
		);
		expect(error.context.parameter).toBe(sends === 'quote' ? 'toChain' : 'deliveredChain');
		expect(await sent(env)).toEqual(['GET /api/v1/supported-assets']);
		await env.mark();
		await env.run(valid());
		expect(await sent(env)).toEqual(['GET /api/v1/supported-assets', post]);
	});

	test('an asset not offered on the chain fails before sending, naming the asset field and the assets of that chain', async () => {
		await env.mark();
		const error = await refusal(sends === 'quote' ? quote({ asset: 'NOPE' }) : ruleset(env, { deliveredAsset: 'NOPE' }));
		expect(error.message).toMatch(
			new RegExp(`^${sends === 'quote' ? 'Asset' : 'Delivered Asset'} "NOPE" is not supported on Ethereum\\. Assets on Ethereum: .*USDC`),
		);
		expect(error.context.parameter).toBe(sends === 'quote' ? 'asset' : 'deliveredAsset');
		expect(await sent(env)).toEqual(['GET /api/v1/supported-assets']);
	});

	test('when the supported chains and assets cannot be read, nothing is sent (fails closed); run again, it succeeds', async () => {
		await env.mark();
		await env.op('POST', '/sandbox/faults', { method: 'GET', path: 'supported-assets', status: 403, count: 1 });
		await expect(env.run(valid())).rejects.toThrow();
		expect((await env.requests()).filter((r) => r.method === 'POST')).toEqual([]);
		await env.run(valid());
		expect((await env.requests()).filter((r) => r.method === 'POST')).toHaveLength(1);
	});
});

test('a batch of quotes reads the supported chains and assets once and fails only the row with an unsupported chain', async () => {
	await env.mark();
	const items = [{ json: { chain: 'ethereum' } }, { json: { chain: 'tron' } }, { json: { chain: 'base' } }];
	const out = await env.run(quote({ toChain: '={{ $json.chain }}' }), { items, continueOnFail: true });
	expect(out[1].json.error).toBe(`Chain "tron" is not supported. ${VALID_CHAINS}`);
	expect(await sent(env)).toEqual(['GET /api/v1/supported-assets', 'POST /api/v1/quotes', 'POST /api/v1/quotes']);
});

describe('User → Create or Update', () => {
	test("a wallet on an unsupported chain fails before the user record is sent, naming the wallet's Chain and the valid chains", async () => {
		await env.mark();
		const error = await refusal(
			user([
				{ chain: 'ethereum', address: '0x1111111111111111111111111111111111111111' },
				{ chain: 'tron', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
			]),
		);
		expect(error.message).toBe(`Wallets → item 2 → Chain "tron" is not supported. ${VALID_CHAINS}`);
		expect(error.description).toMatch(/^Nothing was sent for this item\. User → Create or Update reads the supported chains and assets/);
		expect(error.context.parameter).toBe('wallets');
		expect(await sent(env)).toEqual(['GET /api/v1/supported-assets']);
		// The fix: wallets on listed chains only.
		await env.mark();
		const [made] = await env.run(user([{ chain: 'ethereum', address: '0x1111111111111111111111111111111111111111' }]));
		expect(made.json.label).toBe('dave');
		expect(await sent(env)).toEqual(['GET /api/v1/supported-assets', 'POST /api/v1/add-user-record']);
	});

	test('a return wallet on an unsupported chain is refused the same way', async () => {
		await env.mark();
		const error = await refusal({
			...user([{ chain: 'ethereum', address: walletOf(env.bob, 'ethereum') }]),
			returnWalletsMode: 'replace',
			returnWallets: { wallet: [{ chain: 'tron', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }] },
		});
		expect(error.message).toMatch(/^Return Wallets → item 1 → Chain "tron" is not supported\. Valid chains: /);
		expect(error.context.parameter).toBe('returnWallets');
		expect((await env.requests()).filter((r) => r.method === 'POST')).toEqual([]);
	});
});

test('Payment Order → Set Return Details: a wallet on an unsupported chain fails before the PUT; wallets on listed chains are sent', async () => {
	const [order] = await env.run(payment(env));
	const returnDetails = (chain: string, address: string): INodeParameters => ({
		resource: 'paymentOrder',
		operation: 'setReturnDetails',
		paymentOrderId: { mode: 'id', value: order.json.paymentOrderId as string },
		userId: env.alice.id,
		wallets: { wallet: [{ chain, address }] },
		idempotencyKey: `return-details-${chain}`,
	});
	await env.mark();
	const error = await refusal(returnDetails('tron', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'));
	expect(error.message).toBe(`Return Wallets → item 1 → Chain "tron" is not supported. ${VALID_CHAINS}`);
	expect(error.description).toMatch(/^Nothing was sent for this item\. Payment Order → Set Return Details reads the supported chains and assets/);
	expect(error.context.parameter).toBe('wallets');
	expect((await env.requests()).filter((r) => r.method !== 'GET')).toEqual([]);
	await env.mark();
	await env.run(returnDetails('ethereum', walletOf(env.alice, 'ethereum')));
	expect((await sent(env)).filter((r) => !r.startsWith('GET /api/v1/payment-orders/'))).toEqual([
		'GET /api/v1/supported-assets',
		`PUT /api/v1/payment-orders/${String(order.json.paymentOrderId)}/return-details`,
	]);
});
