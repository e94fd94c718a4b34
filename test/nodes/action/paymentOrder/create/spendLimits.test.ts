/**
 * Spend limits of Payment Order → Create over real HTTP against the sandbox: a breach sends no
 * POST /payment (counted in the sandbox's request log), names the rule, the value and the limit,
 * and behaves like any item error (Continue On Fail). The run total holds under Concurrency > 1,
 * Retry On Fail and a second run of the node (a loop).
 */
import type { INodeParameters } from 'n8n-workflow';

import { walletOf } from '../../../../../harness/sandboxClient';
import { json, orderCount, payment, useEnv } from '../../support';

const env = useEnv();

const posts = async () => (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment').length;
const batch = (...amounts: string[]) => amounts.map((amount) => ({ json: { amount } }));
const byAmount = (limits: INodeParameters, extra: INodeParameters = {}) => payment(env, { amountUsd: '={{ $json.amount }}', spendLimits: limits, ...extra });

describe('Max Amount per Order', () => {
	test('the order over it sends nothing and names the rule, the value and the limit; the others are paid', async () => {
		const out = await env.run(byAmount({ maxAmountPerOrder: '500' }), { items: batch('100', '500.0001', '500'), continueOnFail: true });
		expect(json(out).map((i) => i.error ?? i.amountUsd)).toEqual([
			100,
			'Spend limit Max Amount per Order (USD): the order asks for 500.0001 USD, over the limit of 500 USD',
			500,
		]);
		expect(out[1].pairedItem).toEqual({ item: 1 });
		expect(await posts()).toBe(2);
	});

	test('without Continue On Fail the error stops the run at that item, before its request', async () => {
		await expect(env.run(byAmount({ maxAmountPerOrder: '50' }), { items: batch('60') })).rejects.toMatchObject({
			message: 'Spend limit Max Amount per Order (USD): the order asks for 60 USD, over the limit of 50 USD',
			context: expect.objectContaining({ itemIndex: 0 }),
		});
		expect(await posts()).toBe(0);
	});
});

describe('Max Total per Run', () => {
	test.each([1, 5])('a batch over it pays nothing, every item says why (Concurrency %i)', async (concurrency) => {
		const out = await env.run(byAmount({ maxTotalPerRun: '1000' }, { options: { concurrency } }), {
			items: batch('400', '400', '200.0001', '1'),
			continueOnFail: true,
		});
		expect(out).toHaveLength(4);
		const message =
			'Spend limit Max Total per Run (USD): the 4 orders of this run ask for 1001.0001 USD in total, over the limit of 1000 USD. Nothing was sent for any item';
		expect(json(out).map((i) => i.error)).toEqual([message, message, message, message]);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(await env.requests()).toEqual([]);
	});

	test('a batch within it is paid', async () => {
		const out = await env.run(byAmount({ maxTotalPerRun: '1000' }, { options: { concurrency: 3 } }), { items: batch('400', '400', '200') });
		expect(json(out).map((i) => i.amountUsd)).toEqual([400, 400, 200]);
		expect(await posts()).toBe(3);
	});

	test('without Continue On Fail the run fails on its first item and nothing is sent', async () => {
		await expect(env.run(byAmount({ maxTotalPerRun: '10' }), { items: batch('5', '6') })).rejects.toThrow(
			/Max Total per Run .* 11 USD in total, over the limit of 10 USD/,
		);
		expect(await env.requests()).toEqual([]);
	});

	test('Retry On Fail re-runs the whole check: still nothing is sent', async () => {
		await expect(env.run(byAmount({ maxTotalPerRun: '10' }), { items: batch('5', '6'), retryOnFail: { maxTries: 3 } })).rejects.toThrow(/Max Total per Run/);
		const out = await env.run(byAmount({ maxTotalPerRun: '10' }), { items: batch('5', '6'), retryOnFail: { maxTries: 3 }, continueOnFail: true });
		expect(json(out).every((i) => /Max Total per Run/.test(String(i.error)))).toBe(true);
		expect(await env.requests()).toEqual([]);
	});

	test('each run of the node (a loop: run index 1) is checked on its own batch', async () => {
		const out = await env.run(byAmount({ maxTotalPerRun: '10' }), { items: batch('5', '6'), runIndex: 1, continueOnFail: true });
		expect(json(out).every((i) => /Max Total per Run/.test(String(i.error)))).toBe(true);
		expect(await posts()).toBe(0);
	});

	test('an item whose amount does not parse fails on its own and does not count', async () => {
		const out = await env.run(byAmount({ maxTotalPerRun: '10' }), { items: batch('5', 'ten', '5'), continueOnFail: true });
		expect(json(out).map((i) => (i.error ? 'error' : i.amountUsd))).toEqual([5, 'error', 5]);
		expect(await posts()).toBe(2);
	});

	test('Map Automatically reads the amounts from the input items', async () => {
		const items = ['7', '7'].map((amountUsd) => ({
			json: { fromUserId: env.alice.id, toAddress: walletOf(env.bob, 'ethereum'), toChain: 'ethereum', asset: 'USDC', amountUsd },
		}));
		const out = await env.run(payment(env, { dataMode: 'autoMapInputData', spendLimits: { maxTotalPerRun: '10' } }), { items, continueOnFail: true });
		expect(json(out).every((i) => /14 USD in total, over the limit of 10 USD/.test(String(i.error)))).toBe(true);
		expect(await env.requests()).toEqual([]);
	});
});

describe('Allowed recipients, senders, assets and chains', () => {
	test('a recipient not in the list is refused; EVM addresses match in any case; "chain:address" pins the chain', async () => {
		const bobEth = walletOf(env.bob, 'ethereum');
		const bobBase = walletOf(env.bob, 'base');
		const limits = { allowedRecipients: `${bobEth.toUpperCase().replace('0X', '0x')}\nbase:${bobBase}` };
		const items = [
			{ json: { to: bobEth, chain: 'ethereum' } },
			{ json: { to: bobBase, chain: 'base' } },
			{ json: { to: '0x000000000000000000000000000000000000dEaD', chain: 'ethereum' } },
			{ json: { to: bobBase, chain: 'ethereum' } },
		];
		const out = await env.run(payment(env, { toAddress: '={{ $json.to }}', toChain: '={{ $json.chain }}', spendLimits: limits }), {
			items,
			continueOnFail: true,
		});
		const errors = json(out).map((i) => i.error);
		expect(errors[0]).toBeUndefined();
		expect(errors[1]).toBeUndefined();
		expect(errors[2]).toBe('Spend limit Allowed Recipients: 0x000000000000000000000000000000000000dEaD on ethereum is not in the list (2 allowed)');
		expect(errors[3]).toBe(`Spend limit Allowed Recipients: ${bobBase} on ethereum is not in the list (2 allowed)`);
		expect(await posts()).toBe(2);
	});

	test('assets, chains and senders outside their lists are refused before anything is sent', async () => {
		const cases: Array<[INodeParameters, string]> = [
			[{ allowedAssets: 'USDT' }, 'Spend limit Allowed Assets: USDC is not in the list (USDT)'],
			[{ allowedChains: 'base, polygon' }, 'Spend limit Allowed Chains: ethereum is not in the list (base, polygon)'],
			[{ allowedSenders: env.bob.id }, `Spend limit Allowed Sender User IDs: ${env.alice.id} is not in the list (${env.bob.id})`],
		];
		for (const [limits, message] of cases) {
			await expect(env.run(payment(env, { spendLimits: limits }))).rejects.toThrow(message);
		}
		const [paid] = await env.run(payment(env, { spendLimits: { allowedAssets: 'usdc', allowedChains: 'Ethereum', allowedSenders: env.alice.id } }));
		expect(paid.json.created).toBe(true);
		expect(await posts()).toBe(1);
	});
});

describe('An AI agent cannot fill or get around the limits', () => {
	test('a limit written as $fromAI() is refused and nothing is sent', async () => {
		await expect(env.run(payment(env, { spendLimits: { maxAmountPerOrder: "={{ $fromAI('cap', 'the cap', 'string') }}" } }))).rejects.toThrow(
			'Spend Limits → Max Amount per Order (USD) may not be left to an AI model ($fromAI): set it in the node',
		);
		await expect(env.run(payment(env, { spendLimits: { allowedRecipients: "={{ $fromAi ( 'to' ) }}" } }))).rejects.toThrow(
			/Allowed Recipients may not be left/,
		);
		expect(await env.requests()).toEqual([]);
	});

	test('an amount or recipient left to the model needs its limit', async () => {
		await expect(env.run(payment(env, { amountUsd: "={{ $fromAI('amountUsd', 'USD', 'string') }}" }))).rejects.toThrow(
			'Amount (USD) is left to an AI model ($fromAI) but Spend Limits → Max Amount per Order (USD) is not set: an agent could pay any amount. Set the limit in the node',
		);
		await expect(env.run(payment(env, { toAddress: "={{ $fromAI('to', 'recipient', 'string') }}", spendLimits: { maxAmountPerOrder: '10' } }))).rejects.toThrow(
			/Recipient Address is left to an AI model \(\$fromAI\) but Spend Limits → Allowed Recipients is not set/,
		);
		expect(await orderCount(env)).toBe(0);
		expect(await env.requests()).toEqual([]);
	});

	test('a limit that is not an amount is refused naming the field', async () => {
		await expect(env.run(payment(env, { spendLimits: { maxTotalPerRun: '1,000' } }))).rejects.toThrow(
			'Spend Limits → Max Total per Run (USD): must be plain decimal text: write 1000 if the comma groups thousands, or 1.000 if it marks the decimals (got "1,000"; no thousands separators, spaces or decimal commas)',
		);
	});
});
