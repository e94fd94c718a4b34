/**
 * Paying from a CSV file (issue 48), over real HTTP against the sandbox: five contractors read as n8n's
 * Extract from File reads a CSV (every value text), paid with Create → Map Automatically and a Business
 * Key from the invoice column. Every row's own checks run for all rows before the first order is sent:
 * one error lists every bad row; with Continue On Fail each bad row is its own error item and the good
 * rows are paid. Chain and asset match the service's values in any case and by the chain's display
 * name; amounts written with grouping or float noise are refused with the exact fix. A payee only the
 * service can refuse is named per row, with the rows paid and the rows not paid.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { walletOf } from '../../../../../harness/sandboxClient';
import { json, orderCount, payment, UNKNOWN_WALLET, useEnv } from '../../support';

const env = useEnv();

/** Each run its own execution, as in n8n (a key's first try is kept per execution, and these tests reuse their invoice numbers). */
let execution = 0;
const run = (parameters: INodeParameters, extra: Parameters<typeof env.run>[1] = {}) => env.run(parameters, { executionId: `csv-${++execution}`, ...extra });

/** Map Automatically with the key in "Invoice Number" and the sender given once. */
const fromCsv = (extra: INodeParameters = {}): INodeParameters => {
	const { fromUserId, toAddress, toChain, asset, amountUsd, memo, ...rest } = payment(env);
	void [fromUserId, toAddress, toChain, asset, amountUsd, memo];
	return {
		...rest,
		dataMode: 'autoMapInputData',
		idempotencyKeyMode: 'custom',
		businessKeyField: 'Invoice Number',
		senderForAllRows: env.alice.id,
		...extra,
	};
};

/** A CSV row as Extract from File gives it: every value text. */
const contractor = (invoice: string, amount: string, extra: IDataObject = {}): IDataObject => ({
	Name: `Contractor ${invoice}`,
	Wallet: walletOf(env.bob, 'ethereum'),
	Chain: 'ethereum',
	Asset: 'USDC',
	Amount: amount,
	'Invoice Number': invoice,
	...extra,
});

/** The five rows: 2 to 5 each break one check the node can make before sending. */
const badRows = () => [
	{ json: contractor('INV-1', '100.00') },
	{ json: contractor('INV-2', '200.00', { Chain: 'Mars' }) },
	{ json: contractor('INV-3', '1,250.00') },
	{ json: contractor('INV-4', '400.00', { Asset: undefined }) },
	{ json: contractor('INV-5', '5000.00') },
];
const limits = { spendLimits: { maxAmountPerOrder: '1000' } };

async function failure(run: Promise<unknown>): Promise<{ message: string; description: string }> {
	try {
		await run;
	} catch (error) {
		return error as { message: string; description: string };
	}
	throw new Error('expected the run to fail');
}

describe('a batch is checked whole before anything is sent', () => {
	test('four bad rows of five: nothing is sent, and one error names every bad row with its key, field, value and fix', async () => {
		const before = await orderCount(env);
		const error = await failure(run(fromCsv(limits), { items: badRows() }));
		expect(error.message).toMatch(/^Nothing was sent: 4 of 5 rows need a fix first\. Row 2 \(INV-2\): Chain "Mars" is not supported/);
		expect(error.message).toContain('; Row 3 (INV-3): Input field "amountUsd" must be plain decimal text: write 1250.00 (got "1,250.00"');
		expect(error.message).toContain('; Row 4 (INV-4): Input field "asset" is missing');
		expect(error.message).toContain('(and 1 more, all in the details)');
		// Readable: the headline stays short, the details hold one line per bad row.
		expect(error.message.length).toBeLessThanOrEqual(600);
		const lines = error.description.split('\n').filter((line) => /^Row \d/.test(line));
		expect(lines).toEqual([
			expect.stringMatching(/^Row 2 \(INV-2\): Chain "Mars" is not supported\. Valid chains: Base \(base\), Ethereum \(ethereum\), Solana \(solana\)/),
			expect.stringMatching(/^Row 3 \(INV-3\): Input field "amountUsd" must be plain decimal text: write 1250\.00 \(got "1,250\.00"/),
			expect.stringMatching(/^Row 4 \(INV-4\): Input field "asset" is missing from the input item .* Fix: .*columns/),
			expect.stringMatching(/^Row 5 \(INV-5\): Spend limit Max Amount per Order.*5000.*1000/),
		]);
		expect(await env.requests()).toEqual([]);
		expect(await orderCount(env)).toBe(before);
	});

	test('the same batch with Continue On Fail: each bad row is its own error item, beside its input, and the good row is paid', async () => {
		const out = await run(fromCsv(limits), { items: badRows(), continueOnFail: true });
		expect(out.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		expect(out[0].json).toMatchObject({ idempotencyKey: 'INV-1', created: true });
		expect(json(out.slice(1)).map((o) => o.error)).toEqual([
			expect.stringMatching(/^Chain "Mars" is not supported/),
			expect.stringMatching(/^Input field "amountUsd" must be plain decimal text: write 1250\.00/),
			expect.stringMatching(/^Input field "asset" is missing/),
			expect.stringMatching(/^Spend limit Max Amount per Order/),
		]);
		expect((await env.requests()).map((r) => r.body.idempotencyKey)).toEqual(['INV-1']);
	});

	test('one bad row of three: its own error, saying that no other row was sent either', async () => {
		const items = [{ json: contractor('INV-1', '1') }, { json: contractor('INV-2', '1,250.00') }, { json: contractor('INV-3', '3') }];
		const error = await failure(run(fromCsv(), { items }));
		expect(error.message).toMatch(/^Row 2 of 3 \(INV-2\), n8n item 1: Input field "amountUsd" must be plain decimal text: write 1250\.00 \(got "1,250\.00"/);
		expect(error.description).toMatch(/^Nothing was sent for any row: every row is checked before the first is sent, and the other 2 passed\./);
		expect(await env.requests()).toEqual([]);
	});

	test('a column every row lacks is said once for all rows', async () => {
		const items = [1, 2, 3].map((n) => ({ json: contractor(`INV-${n}`, String(n), { Asset: undefined }) }));
		const error = await failure(run(fromCsv(), { items }));
		expect(error.message).toMatch(/^Nothing was sent: all 3 rows need a fix first\. All 3 rows: Input field "asset" is missing from the input item/);
		expect(await env.requests()).toEqual([]);
	});
});

test('a key the service refuses while the rows are checked: with Continue On Fail every row is its own error item, as before', async () => {
	const credentials = { apiKey: 'sk_wrong_key', baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl, environment: 'sandbox' as const };
	const out = await run(fromCsv(), { items: [{ json: contractor('INV-1', '1') }, { json: contractor('INV-2', '2') }], continueOnFail: true, credentials });
	expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	expect(json(out).map((o) => String(o.error))).toEqual([
		expect.stringMatching(/^The API key was not accepted \(401\)/),
		expect.stringMatching(/^The API key was not accepted \(401\)/),
	]);
	expect(await env.requests()).toEqual([]);
});

describe('what only the service can refuse is named per row', () => {
	test('two unknown payees among five rows: the error names the rows paid and every row not paid', async () => {
		const items = [
			{ json: contractor('INV-1', '1') },
			{ json: contractor('INV-2', '2', { Wallet: UNKNOWN_WALLET }) },
			{ json: contractor('INV-3', '3', { Wallet: UNKNOWN_WALLET.replace('dead', 'beef') }) },
			{ json: contractor('INV-4', '4') },
			{ json: contractor('INV-5', '5') },
		];
		// All five at once, as the default Concurrency runs a CSV of five rows.
		const error = await failure(run(fromCsv({ options: { concurrency: 5 } }), { items }));
		expect(error.message).toMatch(/^Row 2 of 5 \(INV-2\), n8n item 1: Recipient Address "0x0+dead"/);
		expect(error.message).toMatch(/\(3 other rows of this run already succeeded/);
		expect(error.description).toMatch(/^Rows 1, 4 and 5 \(INV-1, INV-4, INV-5\) succeeded/);
		expect(error.description).toMatch(/Besides this row: Row 3 \(INV-3\) also failed: Recipient Address "0x0+beef"/);
	});

	test('a row never started after the failure is named as not sent', async () => {
		const items = [{ json: contractor('INV-1', '1', { Wallet: UNKNOWN_WALLET }) }, { json: contractor('INV-2', '2') }, { json: contractor('INV-3', '3') }];
		const error = await failure(run(fromCsv({ options: { concurrency: 1 } }), { items }));
		expect(error.message).toMatch(/^Row 1 of 3 \(INV-1\), n8n item 0: Recipient Address/);
		expect(error.description).toMatch(/^Rows 2 and 3 \(INV-2, INV-3\) were not sent \(not started after the failure\)\./);
		expect(await orderCount(env)).toBe(0);
	});
});

describe('values matched like columns', () => {
	test('chain and asset in any case and by the panel display name pay with the service values; Allowed Chains sees them too', async () => {
		const items = [
			{ json: contractor('INV-1', '1', { Chain: 'Ethereum', Asset: 'usdc' }) },
			{ json: contractor('INV-2', '2', { Chain: 'Base', Wallet: walletOf(env.bob, 'base'), Asset: 'Pyusd' }) },
			{ json: contractor('INV-3', '3', { Chain: ' SOLANA ', Wallet: walletOf(env.bob, 'solana') }) },
		];
		const out = await run(fromCsv({ spendLimits: { allowedChains: 'ethereum, base, solana', allowedAssets: 'USDC, PYUSD' } }), { items });
		expect(out.map((o) => [o.json.idempotencyKey, o.json.created])).toEqual([
			['INV-1', true],
			['INV-2', true],
			['INV-3', true],
		]);
		const sent = (await env.requests()).sort((a, b) => a.body.amountUsd - b.body.amountUsd);
		expect(sent.map((r) => [r.body.toChain, r.body.asset])).toEqual([
			['ethereum', 'USDC'],
			['base', 'PYUSD'],
			['solana', 'USDC'],
		]);
	});

	test('a float amount is refused with the rounding to make', async () => {
		const items = [{ json: contractor('INV-1', '1', { Amount: 88.55000000000001 }) }];
		await expect(run(fromCsv(), { items })).rejects.toThrow(
			'Input field "amountUsd" must have at most 4 decimal places, i.e. whole hundredths of a cent (got "88.55000000000001"): round it to cents where it is computed (88.55)',
		);
		expect(await env.requests()).toEqual([]);
	});
});

describe('defaults for all rows', () => {
	/** A payee table as it usually is: name, wallet, amount, invoice; no chain, asset or sender column. */
	const bare = (invoice: string, amount: string, extra: IDataObject = {}): IDataObject => {
		const row = contractor(invoice, amount, extra);
		if (!('Chain' in extra)) delete row.Chain;
		if (!('Asset' in extra)) delete row.Asset;
		return row;
	};

	test('Default Chain and Default Asset pay the rows without those columns; a row with its own keeps it', async () => {
		const items = [{ json: bare('INV-1', '1', { Wallet: walletOf(env.bob, 'base') }) }, { json: bare('INV-2', '2', { Chain: 'ethereum', Asset: 'PYUSD' }) }];
		const out = await run(fromCsv({ chainForAllRows: 'base', assetForAllRows: 'USDC' }), { items });
		expect(out.map((o) => [o.json.idempotencyKey, o.json.created])).toEqual([
			['INV-1', true],
			['INV-2', true],
		]);
		const sent = (await env.requests()).sort((a, b) => a.body.amountUsd - b.body.amountUsd);
		expect(sent.map((r) => [r.body.fromUserId, r.body.toChain, r.body.asset])).toEqual([
			[env.alice.id, 'base', 'USDC'],
			[env.alice.id, 'ethereum', 'PYUSD'],
		]);
	});

	test('without them, a row without a chain column is refused naming the column and where to give it once', async () => {
		const error = await failure(run(fromCsv(), { items: [{ json: bare('INV-1', '1') }] }));
		expect(error.message).toMatch(/^Input field "toChain" is missing from the input item/);
		expect(error.description).toContain('Default Chain');
		expect(await env.requests()).toEqual([]);
	});
});
