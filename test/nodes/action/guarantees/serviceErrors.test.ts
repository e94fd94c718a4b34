/**
 * Errors a person can act on: every refusal comes back from the node in the panel's words (the
 * field's label, the value, the rule, the valid chains or assets), with the service's own sentence,
 * its code and the HTTP status in the description. Which field a refusal is about comes from what
 * the node sent and what it can check (GET /supported-assets, GET /account/limits, the request), not
 * from the answer's wording: every case runs twice, against the sandbox and against the sandbox with
 * `rewordErrors` (each refusal a bare `{error: sentence}` in other words, no code, no path). Every
 * message that proposes a fix is followed here, and the fixed run succeeds.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { userOf, walletOf } from '../../../../harness/sandboxClient';
import { payment, useEnv, type NodeEnv } from '../support';
import { repeatedInDescription } from '../../../support/repeats';
import { CREDENTIAL_TEST_SAYS } from '../../../../nodes/shared/serviceErrors';

/** API names and codes that must never lead an error: they are the service's words, not the panel's. */
const API_WORDS =
	/\b(toChain|fromUserId|toAddress|amountUsd|expiresAt|quoteId|subaccountId|deliveredChain|deliveredAsset|idempotencyKey|returnWallets|validation_error|recipient_not_active|limit_exceeded|HTTP \d{3})\b/;

async function failure(env: NodeEnv, parameters: Record<string, unknown>, extra: Parameters<NodeEnv['run']>[1] = {}): Promise<NodeApiError> {
	try {
		await env.run(parameters as never, extra);
	} catch (error) {
		// Every error here: the details (shown under the headline) do not say the headline again.
		expect(repeatedInDescription((error as NodeApiError).message, (error as NodeApiError).description)).toEqual([]);
		return error as NodeApiError;
	}
	throw new Error('expected the node to fail');
}

const sandboxWords = useEnv();
const otherWords = useEnv({ sandbox: { rewordErrors: true } });

describe.each([
	['the sandbox', sandboxWords, true],
	['a service that words every refusal differently', otherWords, false],
] as const)('refusals in the panel words from %s', (_name, env, structured) => {
	test('the double words its refusals unlike the sandbox (no code, no field path)', async () => {
		const error = await failure(env, payment(env, { toAddress: '0x000000000000000000000000000000000000dead' }));
		if (structured) expect(error.description).toContain('(API code recipient_not_active, HTTP 400, field toAddress)');
		else expect(error.description).toMatch(/^The service said: "Declined by the server, status 400; [^"]+" \(HTTP 400\)\./);
	});

	test('an unsupported chain fails before the order is sent, naming Chain, the value and the valid chains; a valid chain pays', async () => {
		await env.mark();
		const error = await failure(env, payment(env, { toChain: 'tron', asset: 'USDT' }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^Chain "tron" is not supported\. Valid chains: Base \(base\), Ethereum \(ethereum\), Solana \(solana\)$/);
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.description).toMatch(/^Nothing was sent for this item\./);
		expect(error.context.parameter).toBe('toChain');
		expect((await env.requests({ withSupportedAssets: true })).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/supported-assets']);
		// The fix the message names (a valid chain) pays.
		const [order] = await env.run(payment(env, { toChain: 'ethereum', asset: 'USDC' }));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('an asset not offered on the chain fails before sending, naming Asset and the assets of that chain; one of them pays', async () => {
		await env.mark();
		const error = await failure(env, payment(env, { toChain: 'ethereum', asset: 'NOPE' }));
		expect(error.message).toMatch(/^Asset "NOPE" is not supported on Ethereum\. Assets on Ethereum: [A-Z]+/);
		expect(error.message).not.toMatch(API_WORDS);
		expect(error.context.parameter).toBe('asset');
		expect((await env.requests()).filter((r) => r.method === 'POST')).toEqual([]);
		const asset = /Assets on Ethereum: ([A-Z]+)/.exec(error.message)![1];
		const [order] = await env.run(payment(env, { toChain: 'ethereum', asset }));
		expect(order.json.asset).toBe(asset);
	});

	test('a recipient of the subaccount paid from the main account says to pay from that subaccount, and doing so pays', async () => {
		const carol = userOf(env.state, 'carol');
		const subaccountId = env.state.subaccounts[0].id;
		expect(carol.accountId).toBe(subaccountId);
		const error = await failure(env, payment(env, { toAddress: walletOf(carol, 'ethereum') }));
		const said = structured
			? /^Recipient Address "0x[0-9a-f]{40}" on Ethereum is not a registered wallet of the credential's own account/
			: /^The service refused this order's Sender User ID "[^"]+" or Recipient Address "0x[0-9a-f]{40}" on Ethereum: both must belong to the credential's own account/;
		expect(error.message).toMatch(said);
		expect(error.message).toContain('set Additional Fields → Subaccount ID to its ID and Sender User ID to a user of it');
		expect(error.message).not.toMatch(/run this again once the wallet is ACTIVE/);
		expect(error.message).not.toMatch(API_WORDS);
		// Followed: the subaccount's ID and a sender of it (carol is its only user).
		const [order] = await env.run(payment(env, { toAddress: walletOf(carol, 'ethereum'), fromUserId: carol.id, additionalFields: { subaccountId } }));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('a sender of the subaccount with the main account names Sender User ID (the service names the field, by its path or by its API name in its sentence) and the fix pays', async () => {
		const carol = userOf(env.state, 'carol');
		const subaccountId = env.state.subaccounts[0].id;
		const error = await failure(env, payment(env, { fromUserId: carol.id, toAddress: walletOf(carol, 'ethereum') }));
		// Both servers name fromUserId: the sandbox by its field path, the other one only in its sentence.
		if (!structured) expect(error.description).toMatch(/^The service said: "Declined by the server, status 400; .*\bfromUserId\b/);
		expect(error.message).toMatch(/^Sender User ID "[0-9a-f-]{36}" is not a user of the credential's own account/);
		expect(error.context.parameter).toBe('fromUserId');
		expect(error.message).toContain('Additional Fields → Subaccount ID');
		const [order] = await env.run(payment(env, { fromUserId: carol.id, toAddress: walletOf(carol, 'ethereum'), additionalFields: { subaccountId } }));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('a wallet registered moments ago (PENDING) is payable once ACTIVE, as the message says', async () => {
		const address = '0x1111111111111111111111111111111111111111';
		await env.run({ resource: 'user', operation: 'createOrUpdate', label: 'dave', wallets: { wallet: [{ chain: 'ethereum', address }] } });
		const error = await failure(env, payment(env, { toAddress: address }));
		expect(error.message).toContain('a wallet registered moments ago becomes payable once the service has made it ACTIVE');
		expect(error.message).not.toMatch(API_WORDS);
		await env.op('POST', '/sandbox/wallets/activate', { chain: 'ethereum', address });
		const [order] = await env.run(payment(env, { toAddress: address }));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('a limit breach names Amount (USD) and the limit; a lower amount pays', async () => {
		await env.op('POST', '/sandbox/account', { limits: { maxTxUsd: 100 } });
		const error = await failure(env, payment(env, { amountUsd: '150' }));
		expect(error.message).toMatch(
			structured
				? /^Amount \(USD\) "150" would exceed the account's largest order allowed in USD \(maxTxUsd\)\. Lower the amount/
				: /^Amount \(USD\) "150" would exceed the account's limits: 150 USD exceeds the per-transaction maximum \(maxTxUsd remaining 100 USD\)\. Lower the amount/,
		);
		expect(error.message).toContain('Account → Check Batch Against Limits');
		const [order] = await env.run(payment(env, { amountUsd: '100' }));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('a batch reads the supported chains and assets once, before its first order, and fails only the row with an unsupported pair', async () => {
		await env.mark();
		const items = [{ json: { chain: 'ethereum' } }, { json: { chain: 'tron' } }, { json: { chain: 'ethereum' } }];
		const out = await env.run(payment(env, { toChain: '={{ $json.chain }}', options: { concurrency: 2 } }), { items, continueOnFail: true });
		expect(out.map((o) => o.json.status ?? o.json.error)).toEqual([
			'AWAITING_FUNDS',
			expect.stringMatching(/^Chain "tron" is not supported\./),
			'AWAITING_FUNDS',
		]);
		const sent = (await env.requests({ withSupportedAssets: true })).map((r) => `${r.method} ${r.path}`);
		expect(sent).toEqual(['GET /api/v1/supported-assets', 'POST /api/v1/payment', 'POST /api/v1/payment']);
	});

	test('when the supported chains and assets cannot be read, no order is sent (fails closed) and the error says why', async () => {
		await env.mark();
		await env.op('POST', '/sandbox/faults', { method: 'GET', path: 'supported-assets', status: 403, count: 1 });
		const error = await failure(env, payment(env));
		expect(error.description).toMatch(/^Nothing was sent\. Payment Order → Create reads the supported chains and assets/);
		expect((await env.requests()).filter((r) => r.method === 'POST')).toEqual([]);
		// Run again once the service answers: it pays.
		const [order] = await env.run(payment(env));
		expect(order.json.status).toBe('AWAITING_FUNDS');
	});

	test('403 for a Subaccount ID that is not a child of the account says so and how to fix it; the corrected ID, or none, reads', async () => {
		const stranger = '7d1c2b3a-0000-4000-8000-000000000001';
		const read = (subaccountId?: string) => env.run({ resource: 'depositAddress', operation: 'getMany', options: subaccountId ? { subaccountId } : {} });
		const error = await failure(env, { resource: 'depositAddress', operation: 'getMany', options: { subaccountId: stranger } });
		expect(error.description).toContain(
			`Subaccount ${stranger} is not a direct child subaccount of the credential's account. ${structured ? 'Correct it' : 'Correct the Subaccount ID'}, or leave it empty to read the credential's own account.`,
		);
		expect(error.description).not.toMatch(/KYB|webhook|idempotency/);
		expect((await read(env.state.subaccounts[0].id)).length).toBeGreaterThan(0);
		expect((await read()).length).toBeGreaterThan(0);
	});

	test('403 for an order of a paused subaccount names the Subaccount ID and says to run again once it is active; resumed, it pays', async () => {
		const carol = userOf(env.state, 'carol');
		const subaccountId = env.state.subaccounts[0].id;
		await env.op('POST', `/sandbox/subaccounts/${subaccountId}`, { status: 'SUSPENDED' });
		const order = payment(env, { fromUserId: carol.id, toAddress: walletOf(carol, 'ethereum'), additionalFields: { subaccountId } });
		const error = await failure(env, order);
		expect(error.description).toContain(`Subaccount ${subaccountId} is not a direct child subaccount of the credential's account, or it is paused`);
		expect(error.description).toContain('run this again once the subaccount is active.');
		await env.op('POST', `/sandbox/subaccounts/${subaccountId}`, { status: 'ACTIVE' });
		const [paid] = await env.run(order);
		expect(paid.json.status).toBe('AWAITING_FUNDS');
	});

	test('412 for a subaccount whose custody wallet is not provisioned says so; once provisioned, the same read answers', async () => {
		const subaccountId = env.state.subaccounts[0].id;
		await env.op('POST', `/sandbox/subaccounts/${subaccountId}`, { provisioned: false });
		const params = { resource: 'depositAddress', operation: 'getMany', options: { subaccountId } };
		const error = await failure(env, params);
		expect(error.description).toContain(
			`The custody wallet of subaccount ${subaccountId} is not provisioned yet. Run this again once the service has provisioned it.`,
		);
		await env.op('POST', `/sandbox/subaccounts/${subaccountId}`, { provisioned: true });
		expect((await env.run(params)).length).toBeGreaterThan(0);
	});

	test('409 for cancelling an order that can no longer be cancelled (expired) says to read it with Get, which shows its state', async () => {
		const [made] = await env.run(payment(env));
		const id = String(made.json.id);
		const cancel = { resource: 'paymentOrder', operation: 'cancel', paymentOrderId: { mode: 'id', value: id }, reason: 'r' };
		await env.op('POST', `/sandbox/payment-orders/${id}/expire`);
		const error = await failure(env, cancel);
		expect(error.description).toMatch(/(What this request names|or what this request names) is not in a state that allows it now\. Read it with Get/);
		const [got] = await env.run({ resource: 'paymentOrder', operation: 'get', paymentOrderId: { mode: 'id', value: id } });
		expect(got.json.status).toBe('EXPIRED');
	});

	test("a key refused at run time says what the credential's Test says, before anything is sent", async () => {
		const credentials = { apiKey: 'sk_live_pasted_from_elsewhere', baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl, environment: 'sandbox' as const };
		const error = await failure(env, payment(env), { credentials });
		expect(error.message.startsWith(CREDENTIAL_TEST_SAYS[401])).toBe(true);
		expect(error.message).not.toMatch(/sk_live_pasted_from_elsewhere/);
		expect(await env.requests()).toEqual([]);
	});

	test('Continue On Fail keeps the panel-worded error on the item', async () => {
		const items = [{ json: { to: walletOf(env.bob, 'ethereum') } }, { json: { to: '0x000000000000000000000000000000000000dead' } }];
		const out = await env.run(payment(env, { toAddress: '={{ $json.to }}' }), { items, continueOnFail: true });
		expect(String(out[1].json.error)).toMatch(
			structured
				? /^Recipient Address "0x0+dead" on Ethereum is not a registered wallet of the credential's own account \(no Subaccount ID given\), or is not an ACTIVE wallet yet: register it to a user of that account \(User → Create or Update User\), or remove this row\./
				: /^The service refused this order's Sender User ID/,
		);
		expect(out[1].json.details).toEqual({ httpCode: '400', description: expect.stringContaining('HTTP 400') });
		// The error output's fields do not repeat the headline either.
		expect(repeatedInDescription(String(out[1].json.error), (out[1].json.details as { description: string }).description)).toEqual([]);
	});
});

/**
 * A service worded unlike the sandbox whose sentence names the request field by its API name (the spec
 * fixes the names), with no code or path: the headline names that panel field, never a guess that
 * contradicts it. The answer is a sandbox fault with its own body (sandbox/traffic.ts `Fault.body`).
 */
describe('a refusal whose sentence names the field by its API name', () => {
	const refuseWith = (sentence: string) =>
		sandboxWords.sb.services.traffic.faults.push({
			method: 'POST',
			path: /^\/api\/v1\/payment$/,
			pathSource: '^/api/v1/payment$',
			count: 1,
			status: 400,
			body: { error: sentence },
		});

	test('an instant order whose quote the service does not know is headlined Quote ID, not Sender User ID or Recipient Address', async () => {
		const env = sandboxWords;
		refuseWith('quoteId does not name a quote of this account');
		const quoteId = '4b1e2c3d-7a6f-4d18-b2c9-5e0f1a2b3c4d';
		const error = await failure(env, payment(env, { mode: 'instant', quoteId }));
		expect(error.message).toMatch(/^Quote ID does not name a quote of this account/);
		expect(error.message).not.toMatch(/Sender User ID|Recipient Address/);
		expect(error.context.parameter).toBe('quoteId');
	});

	test('an unknown payee named only in the sentence (toAddress) leads with "not a registered wallet" and the fix', async () => {
		const env = sandboxWords;
		refuseWith('Payment declined: toAddress is unknown to us');
		const error = await failure(env, payment(env, { toAddress: '0x000000000000000000000000000000000000dead' }));
		expect(error.message).toMatch(
			/^Recipient Address "0x0+dead" on Ethereum is not a registered wallet of the credential's own account \(no Subaccount ID given\), or is not an ACTIVE wallet yet: register it to a user of that account \(User → Create or Update User\), or remove this row\./,
		);
		expect(error.description).toContain('The service said: "Payment declined: toAddress is unknown to us"');
		expect(error.context.parameter).toBe('toAddress');
	});

	test('a sentence that names no field of the request keeps the guess, which lists what it could be', async () => {
		const env = sandboxWords;
		refuseWith('Payment declined');
		const error = await failure(env, payment(env));
		expect(error.message).toMatch(/^The service refused this order's Sender User ID "[^"]+" or Recipient Address "0x[0-9a-f]{40}" on Ethereum/);
	});
});
