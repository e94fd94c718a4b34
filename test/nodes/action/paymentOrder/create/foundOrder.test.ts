/**
 * Payment Order → Create when a Business Key finds an order that already exists (issue 36): an order
 * from an earlier period or a dead order fails the item (nobody silently unpaid), a re-run that
 * finishes the same batch stays quiet, a found order awaiting funds says where to pay and what was
 * already seen, one listing per run answers every 409, a dry run names the items that already exist;
 * Find by Keys and Check Batch Against Limits say the same as data. Real HTTP against the sandbox,
 * whose clock is moved forward to make orders old (its Date header tells the nodes its time).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { waitFor } from '../../../../../harness/wait';
import { walletOf } from '../../../../../harness/sandboxClient';
import { json, orderCount, payment, useEnv } from '../../support';

const pick = (o: IDataObject, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

const env = useEnv();

const DAY = 86_400;
const advance = (seconds: number) => env.op('POST', '/clock/advance', { seconds });
/** A payroll keyed by payee only (the trap): one item per payee, the key mapped from employeeId. */
const payroll = (extra: INodeParameters = {}) =>
	payment(env, {
		idempotencyKeyMode: 'custom',
		idempotencyKey: '={{ $json.employeeId }}',
		amountUsd: '={{ $json.amount }}',
		toAddress: walletOf(env.bob, 'ethereum'),
		...extra,
	});
const payees = (prefix: string, n = 3) => Array.from({ length: n }, (_, i) => ({ json: { employeeId: `${prefix}-${i + 1}`, amount: `${10 + i}` } }));
/** Expires At two months ahead: the order stays AWAITING_FUNDS while the clock moves a month (the same body each run: the service replays). */
const farExpiry = () => ({ expiry: 'at', expiresAt: new Date(Date.now() + 60 * DAY * 1000).toISOString() });
const posts = async () => (await env.requests()).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');

describe('a Business Key from an earlier period is loud', () => {
	test('a month later the same payee keys fail every item, naming the key, when, the order, its status and the fix; nothing is paid twice', async () => {
		const params = payroll(farExpiry());
		const first = json(await env.run(params, { items: payees('EMP'), executionId: '1' }));
		expect(first.map((o) => o.created)).toEqual([true, true, true]);
		await advance(31 * DAY);
		const second = json(await env.run(params, { items: payees('EMP'), executionId: '2', continueOnFail: true }));
		expect(second).toHaveLength(3);
		second.forEach((item, n) => {
			expect(item.error).toMatch(
				new RegExp(
					`^Business Key "EMP-${n + 1}" was already used 31 days before this execution began, by payment order ${String(first[n].id)} \\(made .*, status AWAITING_FUNDS\\): nothing new was paid`,
				),
			);
		});
		expect(await orderCount(env)).toBe(3);
	});

	test('the error says the fix: the period in the key, or a longer reuse window for the same batch', async () => {
		const params = payroll(farExpiry());
		await env.run(params, { items: payees('FIX', 1), executionId: '1' });
		await advance(31 * DAY);
		await expect(env.run(params, { items: payees('FIX', 1), executionId: '2' })).rejects.toMatchObject({
			description: expect.stringMatching(
				// 31 days and the real time between the two runs, rounded up: 744 when both fall in one second of the
				// service's Date header (whole seconds), else 745.
				/put the period or the invoice number in the key, e\.g\. \{\{ \$json\.employeeId \}\}-\{\{ \$now\.toFormat\('yyyy-MM'\) \}\}.*Reuse Orders Made Within \(Hours\) above 74[45] \(now 12\)/,
			),
		});
	});

	test('found through the 409 (Expires In counted from each run) and paid in full: DISTRIBUTED a month ago is loud too', async () => {
		const [order] = json(await env.run(payroll(), { items: payees('PAID', 1), executionId: '1' }));
		const status = async () => (await env.op('GET', `/payment-orders/${String(order.id)}`)).status;
		await env.client.deposit(String(order.id), 10);
		await waitFor(async () => (await advance(60), (await status()) === 'FUNDED'), 30_000, 'the order to be FUNDED', 50);
		await env.op('POST', '/netting/close', {});
		await waitFor(async () => (await advance(60), (await status()) === 'DISTRIBUTED'), 30_000, 'the order to be DISTRIBUTED', 50);
		await advance(31 * DAY);
		await env.mark();
		await expect(env.run(payroll({ expiresInMinutes: 61 }), { items: payees('PAID', 1), executionId: '2' })).rejects.toThrow(
			/Business Key "PAID-1" was already used 31 days before this execution began, by payment order .*status DISTRIBUTED/,
		);
		expect((await posts()).map((r) => r.status)).toEqual([409]);
		expect(await orderCount(env)).toBe(1);
	});
});

describe('the paths that finish a batch stay quiet', () => {
	test('a re-run 11 hours later (a crash or an outage overnight) returns the existing orders without an error', async () => {
		const params = payroll(farExpiry());
		const first = json(await env.run(params, { items: payees('LATE'), executionId: '1' }));
		await advance(11 * 3600);
		const again = json(await env.run(params, { items: payees('LATE'), executionId: '2' }));
		expect(again.map((o) => [o.id, o.created, o.replayed])).toEqual(first.map((o) => [o.id, false, true]));
		expect(await orderCount(env)).toBe(3);
	});

	test('Reuse Orders Made Within (Hours) sets the window: 10 hours makes that re-run loud, 0 refuses any earlier run', async () => {
		const params = payroll(farExpiry());
		await env.run(params, { items: payees('WIN', 1), executionId: '1' });
		await advance(11 * 3600);
		await expect(env.run({ ...params, options: { reuseWindowHours: 10 } }, { items: payees('WIN', 1), executionId: '2' })).rejects.toThrow(
			/was already used 11 hours before this execution began/,
		);
		await expect(env.run({ ...params, options: { reuseWindowHours: 0 } }, { items: payees('WIN', 1), executionId: '3' })).rejects.toThrow(/already used/);
		const [quiet] = json(await env.run({ ...params, options: { reuseWindowHours: 12 } }, { items: payees('WIN', 1), executionId: '4' }));
		expect(quiet).toMatchObject({ created: false, replayed: true });
	});

	test('a Reuse window that is not a number of hours stops the item before anything is sent', async () => {
		await env.mark();
		await expect(env.run({ ...payroll(), options: { reuseWindowHours: 'twelve' } }, { items: payees('BAD', 1) })).rejects.toThrow(
			'Reuse Orders Made Within (Hours) must be a number of hours, 0 or more (got "twelve")',
		);
		expect(await env.requests()).toEqual([]);
	});
});

describe('a dead order found by its key: the payee is unpaid, only a new key pays', () => {
	test.each([
		['expired', async (id: string) => env.op('POST', `/payment-orders/${id}/expire`), /can no longer pay: it is EXPIRED/],
		[
			'cancelled',
			async (id: string) => env.client.api('POST', `/payment-orders/${id}/cancel`, {}),
			/can no longer pay: (it is CANCELED|its cancellation was requested)/,
		],
	] as const)('%s: the re-run fails the item; Find by Keys says keyState "dead"', async (_, kill, why) => {
		const params = payroll(farExpiry());
		const [order] = json(await env.run(params, { items: payees('DEAD', 1), executionId: '1' }));
		await kill(String(order.id));
		const run = env.run(params, { items: payees('DEAD', 1), executionId: '2' });
		await expect(run).rejects.toThrow(/^Payee unpaid: this item's Business Key "DEAD-1" belongs to payment order/);
		await expect(env.run(params, { items: payees('DEAD', 1), executionId: '3' })).rejects.toThrow(why);
		await expect(env.run(params, { items: payees('DEAD', 1), executionId: '4' })).rejects.toMatchObject({
			description: expect.stringContaining('Only a new key pays'),
		});
		const [found] = json(
			await env.run({ resource: 'paymentOrder', operation: 'findByKeys', businessKey: '={{ $json.employeeId }}' }, { items: payees('DEAD', 1) }),
		);
		expect(found).toMatchObject({ found: true, keyState: 'dead', id: order.id, note: expect.stringContaining('The payee is unpaid, and only a new key pays') });
		expect(await orderCount(env)).toBe(1);
		// Followed: a new Business Key (the suffix the error proposes) pays the payee.
		const [paid] = json(await env.run({ ...params, idempotencyKey: '={{ $json.employeeId }}-2' }, { items: payees('DEAD', 1), executionId: '5' }));
		expect(paid).toMatchObject({ created: true, idempotencyKey: 'DEAD-1-2', status: 'AWAITING_FUNDS' });
		expect(await orderCount(env)).toBe(2);
	});

	test('with the error output (Continue On Fail) the dead item goes there and the others pass', async () => {
		const params = payroll(farExpiry());
		const first = json(await env.run(params, { items: payees('MIX'), executionId: '1' }));
		await env.op('POST', `/payment-orders/${String(first[1].id)}/expire`);
		const out = json(await env.run(params, { items: payees('MIX'), executionId: '2', continueOnFail: true }));
		expect(out[0]).toMatchObject({ id: first[0].id, created: false });
		expect(String(out[1].error)).toMatch(/^Payee unpaid: .*"MIX-2"/);
		expect(out[2]).toMatchObject({ id: first[2].id, created: false });
	});
});

describe('a found order awaiting funds says where to pay and what was already seen', () => {
	test('found through the 409: the deposit address, fundsSeen false; after a partial deposit, what is seen and what is missing', async () => {
		const [order] = json(await env.run(payroll(), { items: payees('ADDR', 1), executionId: '1' }));
		const [again] = json(await env.run(payroll({ expiresInMinutes: 61 }), { items: payees('ADDR', 1), executionId: '2' }));
		expect(again).toMatchObject({ id: order.id, created: false, depositAddress: order.depositAddress, fundsSeen: false, fundsSeenUsd: '0' });
		expect(again.depositAddresses).toEqual(order.depositAddresses);
		await env.client.deposit(String(order.id), 4);
		const [third] = json(await env.run(payroll({ expiresInMinutes: 62 }), { items: payees('ADDR', 1), executionId: '3' }));
		expect(third).toMatchObject({ status: 'AWAITING_FUNDS', depositAddress: order.depositAddress, fundsSeen: true, fundsSeenUsd: '4' });
		expect(String(third.depositAddressNote)).toMatch(/^Funds of 4 USD for this order were already seen .* 6 USD is still missing: send only that/);
		expect(await orderCount(env)).toBe(1);
	});

	test('created and found items have the same columns', async () => {
		const [created] = json(await env.run(payroll(), { items: payees('COL', 1), executionId: '1' }));
		const [found] = json(await env.run(payroll({ expiresInMinutes: 61 }), { items: payees('COL', 1), executionId: '2' }));
		const [replayed] = json(await env.run(payroll(farExpiry()), { items: payees('COL2', 1), executionId: '3' }));
		const [replayedAgain] = json(
			await env.run(payroll({ expiresAt: String(replayed.expiresAt), expiry: 'at' }), { items: payees('COL2', 1), executionId: '4' }),
		);
		const columns = (o: IDataObject) => Object.keys(o).sort();
		expect(columns(found)).toEqual(columns(created));
		expect(columns(replayedAgain)).toEqual(columns(created));
		expect(created).toMatchObject({ replayed: false, replayNote: null, fundsSeen: false });
	});
});

test('one listing per run answers every 409: N items cost the pages of one listing, not N times them', async () => {
	const N = 5;
	await env.run(payroll(), { items: payees('ONE', N), executionId: '1' });
	await env.op('POST', '/payment-orders/bulk', { count: 2500 }); // the keyed orders now sit on the third page
	await env.mark();
	const out = json(await env.run(payroll({ expiresInMinutes: 61 }), { items: payees('ONE', N), executionId: '2' }));
	expect(out.map((o) => o.created)).toEqual(Array(N).fill(false));
	const reqs = await env.requests();
	expect(reqs.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual(Array(N).fill(409));
	const listings = reqs.filter((r) => r.method === 'GET' && r.path === '/api/v1/payment-orders');
	// 2505 orders at 1000 a page: one listing of 3 pages (each item on its own read 3 pages: 15).
	expect(listings.map((r) => r.query.offset)).toEqual(['0', '1000', '2000']);
	expect(reqs.filter((r) => r.path === '/api/v1/deposit-addresses')).toHaveLength(1);
});

test('a dry run says which items already have an order, and which a real run would fail', async () => {
	const params = payroll(farExpiry());
	await env.run(params, { items: payees('DRY', 1), executionId: '1' });
	const dry = (executionId: string) =>
		env.run({ ...params, options: { dryRun: true } }, { items: [...payees('DRY', 1), { json: { employeeId: 'DRY-new', amount: '5' } }], executionId });
	const [existing, fresh] = json(await dry('2'));
	expect(existing.checks).toEqual(
		expect.arrayContaining([expect.stringMatching(/^Business Key "DRY-1" already belongs to payment order .*: a real run returns that order/)]),
	);
	expect(JSON.stringify(fresh.checks)).not.toContain('already belongs');
	await advance(31 * DAY);
	const [old] = json(await dry('3'));
	expect(old.checks).toEqual(
		expect.arrayContaining([expect.stringMatching(/a real run fails this item\. Business Key "DRY-1" was already used 31 days before/)]),
	);
	expect(await orderCount(env)).toBe(1);
});

describe('before paying: which keys are already used', () => {
	test('Find by Keys: keyState live, dead or unused, with a note for each', async () => {
		const params = payroll(farExpiry());
		const [live, dead] = json(await env.run(params, { items: payees('FK', 2), executionId: '1' }));
		await env.op('POST', `/payment-orders/${String(dead.id)}/expire`);
		const out = json(await env.run({ resource: 'paymentOrder', operation: 'findByKeys', businessKey: '={{ $json.employeeId }}' }, { items: payees('FK', 3) }));
		expect(out.map((o) => o.keyState)).toEqual(['live', 'dead', 'unused']);
		expect(out[0]).toMatchObject({
			id: live.id,
			note: expect.stringMatching(/^This key was used on .* by payment order .* \(status AWAITING_FUNDS\)\. Create with this key returns that order/),
		});
	});

	test('Check Batch Against Limits with Business Key lists the used keys (when, which order, status) in one listing', async () => {
		const [used] = json(await env.run(payroll(farExpiry()), { items: payees('CB', 1), executionId: '1' }));
		await env.mark();
		const [report] = json(
			await env.run({ resource: 'account', operation: 'checkBatch', amountUsd: '={{ $json.amount }}', businessKey: '={{ $json.employeeId }}' } as never, {
				items: payees('CB', 3),
			}),
		);
		expect(report).toMatchObject({ ok: true, keysChecked: 3, keysUsed: 1 });
		expect(report.usedKeys).toEqual([
			expect.objectContaining({ item: 1, businessKey: 'CB-1', paymentOrderId: used.id, status: 'AWAITING_FUNDS', createdAt: used.createdAt, keyState: 'live' }),
		]);
		expect(String(report.keysNote)).toMatch(/^1 of the 3 Business Keys already have an order \(items 1\)/);
		expect((await env.requests()).filter((r) => r.path === '/api/v1/payment-orders')).toHaveLength(1);
		const [plain] = json(
			await env.run({ resource: 'account', operation: 'checkBatch', amountUsd: '={{ $json.amount }}' } as never, { items: payees('CB', 3) }),
		);
		expect(plain.keysUsed).toBeUndefined();
	});
});

/**
 * A gateway in front of the service whose Date header is off by `shiftMs` (a lagging cache, a proxy
 * with a wrong clock): it forwards every request to the sandbox and changes nothing but that header.
 */
async function dateShiftingGateway(target: string, shiftMs: number): Promise<{ url: string; close: () => Promise<void> }> {
	const upstream = new URL(target);
	const server = createServer((req, res) => {
		const forward = httpRequest(
			{ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
			(answer) => {
				const headers = { ...answer.headers, date: new Date(Date.parse(String(answer.headers.date)) + shiftMs).toUTCString() };
				res.writeHead(answer.statusCode ?? 502, headers);
				answer.pipe(res);
			},
		);
		forward.on('error', () => res.writeHead(502).end());
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe("a found order's age is judged by the clock that makes it older (issue 46)", () => {
	const through = (gateway: { url: string }) => ({
		credentials: { apiKey: env.sb.apiKey, baseUrl: gateway.url, rewardsUrl: env.sb.rewardsUrl, environment: 'sandbox' as const },
	});

	test("a Date header that lags a month: last month's order is still last month's (the item fails, naming both clocks; nothing is paid)", async () => {
		// Last month's run made the order: the sandbox's clock is set a month back for it, then moved back to now.
		env.sb.services.core.scheduler.offsetMs = -31 * DAY * 1000;
		// The same payment values as this run sends (its expiresAt aside): the service answers the run's key with 409, the node finds the order.
		const { paymentOrder: earlier } = await env.client.api('POST', '/payment', {
			...pick(payment(env), ['fromUserId', 'toAddress', 'toChain', 'asset', 'memo']),
			amountUsd: 10,
			expiresAt: farExpiry().expiresAt,
			idempotencyKey: 'LAG-1',
		});
		await advance(31 * DAY);
		const gateway = await dateShiftingGateway(env.sb.mainUrl, -31 * DAY * 1000);
		try {
			await expect(env.run(payroll(farExpiry()), { items: payees('LAG', 1), executionId: '2', ...through(gateway) })).rejects.toMatchObject({
				message: expect.stringMatching(
					new RegExp(`^Business Key "LAG-1" was already used 31 days before this execution began, by payment order ${String(earlier.id)} `),
				),
				description: expect.stringMatching(
					/^By n8n's clock; by the service's Date header it was made 0 minutes before: the two clocks differ by 31 days\. The node judges an order's age by the later of the two/,
				),
			});
		} finally {
			await gateway.close();
		}
		expect(await orderCount(env)).toBe(1);
	});

	test('a Date header that leads a month: the order made minutes ago counts as a month old (loud, never silent)', async () => {
		const params = payroll(farExpiry());
		const [first] = json(await env.run(params, { items: payees('LEAD', 1), executionId: '1' }));
		const gateway = await dateShiftingGateway(env.sb.mainUrl, 31 * DAY * 1000);
		try {
			await expect(env.run(params, { items: payees('LEAD', 1), executionId: '2', ...through(gateway) })).rejects.toMatchObject({
				message: expect.stringMatching(
					new RegExp(`^Business Key "LEAD-1" was already used 31 days before this execution began, by payment order ${String(first.id)} `),
				),
				description: expect.stringMatching(
					/^By the service's clock \(the Date header of its answers\); by n8n's clock it was made 0 minutes before: the two clocks differ by 31 days\./,
				),
			});
		} finally {
			await gateway.close();
		}
		expect(await orderCount(env)).toBe(1);
	});

	test('without a gateway the clocks agree: the same re-run returns the order, quietly', async () => {
		const params = payroll(farExpiry());
		const [first] = json(await env.run(params, { items: payees('SAME', 1), executionId: '1' }));
		const [again] = json(await env.run(params, { items: payees('SAME', 1), executionId: '2' }));
		expect(again).toMatchObject({ id: first.id, created: false, replayed: true });
	});
});
