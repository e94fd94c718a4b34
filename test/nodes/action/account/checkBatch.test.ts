/** Account → Check Batch Against Limits, over real HTTP against the sandbox. */
import { payment, useEnv } from '../support';

const env = useEnv();

describe('Account', () => {
	describe('Check Batch Against Limits', () => {
		const batch = (amounts: string[]) => amounts.map((amountUsd, n) => ({ json: { amountUsd, reference: `INV-${n + 1}` } }));
		const check = (amounts: string[], extra: Record<string, unknown> = {}) =>
			env.run({ resource: 'account', operation: 'checkBatch', dataMode: 'autoMapInputData', ...extra } as never, { items: batch(amounts) });

		test('a batch that fits: one item, ok, count, total and largest; one read, nothing written', async () => {
			await env.mark();
			const out = await check(['10', '20.5', '0.0001']);
			expect(out).toHaveLength(1);
			expect(out[0].pairedItem).toEqual({ item: 0 });
			expect(out[0].json).toMatchObject({ ok: true, orders: 3, totalUsd: 30.5001, largestUsd: 20.5, largestItem: 2, problems: [] });
			expect(String(out[0].json.summary)).toMatch(/^The batch fits the account limits: 3 orders, 30\.5001 USD in total, the largest 20\.5 USD\.$/);
			expect((await env.requests()).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/account/limits']);
		});

		test('each limit the batch would break is named with the numbers; orders already made count', async () => {
			await env.op('POST', '/sandbox/account', {
				limits: { maxTxUsd: 100, maxCountPerEpoch: 3, maxValuePerEpochUsd: 200, maxCountPerDay: 10, maxValuePerDayUsd: 1000 },
			});
			// One order already made in this window: 1 of the 3 orders and 50 of the 200 USD are used.
			await env.run(payment(env, { amountUsd: '50' }));
			const out = await check(['120', '30', '40'], { amountUsd: 'ignored' });
			const report = out[0].json as any;
			expect(report.ok).toBe(false);
			expect(report.problems).toEqual([
				'One order is above the largest order allowed: item 1 asks 120 USD, the limit is 100 USD (maxTxUsd)',
				'3 orders but only 2 orders per netting window left (maxCountPerEpoch 3): 1 too many',
				'the batch totals 190 USD but only 150 USD per netting window is left (maxValuePerEpochUsd 200): 40 USD over',
			]);
			expect(report.checks.find((c: any) => c.limit === 'maxValuePerDayUsd')).toEqual({
				limit: 'maxValuePerDayUsd',
				what: 'USD per day',
				batch: 190,
				ceiling: 1000,
				remaining: 950,
				ok: true,
				over: 0,
			});
			expect(report.summary).toMatch(/^The batch would exceed 3 limits \(3 orders, 190 USD in total, the largest 120 USD\): One order is above/);
		});

		test('absent daily limits are reported as not checked (field notes)', async () => {
			await env.op('POST', '/sandbox/account', { limits: { maxCountPerDay: null, maxValuePerDayUsd: null } });
			const [item] = await check(['5']);
			expect(item.json).toMatchObject({ ok: true, notChecked: ['maxCountPerDay', 'maxValuePerDayUsd'] });
			expect(String(item.json.summary)).toContain("Not checked (absent from the account's limits): maxCountPerDay, maxValuePerDayUsd.");
		});

		test('Define Below reads Amount (USD) per item, as Create does; a bad amount names the item and the field, before any request', async () => {
			const [item] = await env.run({ resource: 'account', operation: 'checkBatch', amountUsd: '={{ $json.amountUsd }}' } as never, {
				items: batch(['1', '2']),
			});
			expect(item.json).toMatchObject({ ok: true, orders: 2, totalUsd: 3 });
			await env.mark();
			await expect(check(['1', '1,000'])).rejects.toThrow(/^Row 2: Input field "amountUsd" must be plain decimal text/);
			expect(await env.requests()).toEqual([]);
		});
	});
});
