/**
 * Errors a person can act on: every 4xx the service sends comes back from the node in the panel's
 * words (the field's label, the value, the rule, the valid chains or assets), with the service's own
 * sentence, its code and the HTTP status in the description.
 */
import { NodeApiError } from 'n8n-workflow';

import { payment, walletOf, useEnv } from './env';

const env = useEnv();

/** API names and codes that must never lead an error: they are the service's words, not the panel's. */
const API_WORDS =
	/\b(toChain|fromUserId|toAddress|amountUsd|expiresAt|quoteId|subaccountId|deliveredChain|deliveredAsset|idempotencyKey|returnWallets|validation_error|recipient_not_active|limit_exceeded|HTTP \d{3})\b/;

async function failure(parameters: Record<string, unknown>): Promise<NodeApiError> {
	try {
		await env.run(parameters as never);
	} catch (error) {
		return error as NodeApiError;
	}
	throw new Error('expected the node to fail');
}

describe('service 4xx errors in the panel words', () => {
	test('an unsupported chain names Chain, the value and the valid chains; the service sentence stays in the description', async () => {
		const error = await failure(payment(env, { toChain: 'tron', asset: 'USDT' }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/^Chain "tron" is not supported\. Valid chains: .*Ethereum \(ethereum\)/);
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.description).toContain('The service said: "Unsupported toChain tron"');
		expect(error.description).toContain('API code validation_error, HTTP 400, field toChain');
		expect(error.httpCode).toBe('400');
		expect(error.context.parameter).toBe('toChain');
	});

	test('an asset not offered on the chain names Asset and the assets of that chain', async () => {
		const error = await failure(payment(env, { toChain: 'ethereum', asset: 'NOPE' }));
		expect(error.message).toMatch(/^Asset "NOPE" is not supported on Ethereum\. Assets on Ethereum: [A-Z]+/);
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.context.parameter).toBe('asset');
	});

	test('an unknown sender names Sender User ID and the value', async () => {
		const error = await failure(payment(env, { fromUserId: 'no-such-user' }));
		expect(error.message).toMatch(/^Sender User ID no-such-user is not a user of account /);
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.context.parameter).toBe('fromUserId');
	});

	test('a recipient that is not registered says how a wallet becomes active', async () => {
		const error = await failure(payment(env, { toAddress: '0x000000000000000000000000000000000000dead' }));
		expect(error.message).toMatch(/^Recipient Address "0x0+dead" is not a registered wallet of the account on Ethereum\. A recipient becomes active/);
		expect(error.message).toContain('User → Create or Update');
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.description).toContain('API code recipient_not_active');
	});

	test('a registered recipient still PENDING is named with its state', async () => {
		const address = '0x1111111111111111111111111111111111111111';
		await env.run({ resource: 'user', operation: 'createOrUpdate', label: 'carol', wallets: { wallet: [{ chain: 'ethereum', address }] } });
		const error = await failure(payment(env, { toAddress: address }));
		expect(error.message).toMatch(/^Recipient Address "0x1{40}" is not active yet on Ethereum \(PENDING\)\. A recipient becomes active/);
		expect(error.message).not.toMatch(API_WORDS);
	});

	test('a limit breach names Amount (USD), the limit in words and the batch check', async () => {
		await env.op('POST', '/sandbox/account', { limits: { maxTxUsd: 100 } });
		const error = await failure(payment(env, { amountUsd: '150' }));
		expect(error.message).toMatch(/^Amount \(USD\) "150" would exceed the account's largest order \(maxTxUsd\): maxTxUsd exceeded: 150 > 100\./);
		expect(error.message).toContain('Account → Check Batch Against Limits');
		expect(error.description).toContain('API code limit_exceeded, HTTP 400');
	});

	test('Continue On Fail keeps the panel-worded error on the item', async () => {
		const items = [{ json: { to: walletOf(env.bob, 'ethereum') } }, { json: { to: '0x000000000000000000000000000000000000dead' } }];
		const out = await env.run(payment(env, { toAddress: '={{ $json.to }}' }), { items, continueOnFail: true });
		expect(String(out[1].json.error)).toMatch(/^Recipient Address "0x0+dead" is not a registered wallet/);
		expect(out[1].json.details).toEqual({ httpCode: '400', description: expect.stringContaining('recipient_not_active') });
	});
});
