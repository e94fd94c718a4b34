/** Which limits of GET /account/limits an order, or a whole run, would breach, read exactly. */
import { parseUsdAmount } from '../../nodes/shared/amounts';
import { ACCOUNT_LIMITS, limitBreaches, limitEntry, LimitReadError, limitWords, type LimitsAsked } from '../../nodes/shared/limits';

const usd = (text: string) => parseUsdAmount(text);
/** The breaches of one order (a limit not read exactly fails the test here; see the fail-closed cases). */
const breaches = (limits: object, asked: LimitsAsked | string) => {
	const checked = limitBreaches(limits as never, typeof asked === 'string' ? { order: usd(asked) } : asked);
	if ('unreadable' in checked) throw checked.unreadable;
	return checked.breaches;
};

test('an order that fits every limit breaches none', () => {
	const limits = {
		maxTxUsd: { limit: 1000, used: 0, remaining: 1000 },
		maxValuePerEpochUsd: { limit: 5000, used: 4000, remaining: 1000 },
		maxValuePerDayUsd: { limit: 10000, used: 0, remaining: 10000 },
		maxCountPerEpoch: { limit: 10, used: 9, remaining: 1 },
		maxCountPerDay: { limit: 100, used: 0, remaining: 100 },
	};
	expect(breaches(limits, '1000')).toEqual([]);
});

test('the amount is compared exactly, in pips: one pip over the maximum breaches it', () => {
	expect(breaches({ maxTxUsd: { remaining: 0.3 } }, '0.3')).toEqual([]);
	expect(breaches({ maxTxUsd: { remaining: 0.3 } }, '0.3001')).toEqual(['0.3001 USD exceeds the per-transaction maximum (maxTxUsd remaining 0.3 USD)']);
});

test('every breached limit is named, value limits before count limits', () => {
	const limits = {
		maxCountPerDay: { remaining: 0 },
		maxValuePerDayUsd: { remaining: 10 },
		maxValuePerEpochUsd: { remaining: 20 },
		maxCountPerEpoch: { remaining: 0 },
	};
	expect(breaches(limits, '25')).toEqual([
		'25 USD exceeds the value left in this netting window (maxValuePerEpochUsd remaining 20 USD)',
		'25 USD exceeds the value left today (maxValuePerDayUsd remaining 10 USD)',
		'no orders left in this netting window (maxCountPerEpoch remaining 0)',
		'no orders left today (maxCountPerDay remaining 0)',
	]);
});

test('without `remaining` what is left is the limit less what is used (used missing: 0)', () => {
	expect(breaches({ maxValuePerDayUsd: { limit: 100, used: 90 } }, '11')).toEqual(['11 USD exceeds the value left today (maxValuePerDayUsd remaining 10 USD)']);
	expect(breaches({ maxValuePerDayUsd: { limit: 100 } }, '100')).toEqual([]);
});

test('what is left is exact: limit 1000.3 less 0.1 used leaves 1000.2, not a pip less', () => {
	// In floats 1000.3 - 0.1 is 1000.1999999999999: truncated to pips, an order of 1000.2 was refused.
	expect(limitEntry({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, 'maxValuePerDayUsd')).toEqual({ ceiling: 1000.3, remaining: 1000.2 });
	expect(breaches({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, '1000.2')).toEqual([]);
	expect(breaches({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, '1000.2001')).toEqual([
		'1000.2001 USD exceeds the value left today (maxValuePerDayUsd remaining 1000.2 USD)',
	]);
	expect(limitEntry({ maxValuePerEpochUsd: { limit: 0.3, used: 0.2 } }, 'maxValuePerEpochUsd')).toEqual({ ceiling: 0.3, remaining: 0.1 });
});

test('absent limits are not checked', () => {
	expect(breaches({}, '1000000')).toEqual([]);
	expect(breaches({ maxTxUsd: null, maxValuePerDayUsd: undefined } as never, '1000000')).toEqual([]);
});

test.each([
	['a limit of more than 4 decimal places', { maxTxUsd: { limit: 1000.00001, used: 0, remaining: 1000 } }, 'maxTxUsd', 'its limit is 1000.00001'],
	['a remaining value that is not a number', { maxValuePerDayUsd: { limit: 100, remaining: 'lots' } }, 'maxValuePerDayUsd', 'its remaining is "lots"'],
	['a used value that is not a number', { maxCountPerDay: { limit: 100, used: true } }, 'maxCountPerDay', 'its used is true'],
	['an entry that is not an object', { maxValuePerDayUsd: 'none' }, 'maxValuePerDayUsd', 'got "none", not an object'],
	['an entry with neither limit nor remaining', { maxCountPerDay: { used: 5 } }, 'maxCountPerDay', 'it has neither a limit nor a remaining value'],
])('%s fails closed, naming the limit', (_case, limits, name, why) => {
	for (const asked of [{ order: usd('1') }, { run: usd('1'), orders: 1 }]) {
		const checked = limitBreaches(limits as never, asked);
		if (name === 'maxTxUsd' && 'run' in asked) {
			// A run's total is not held against the per-order maximum, so it is not read for a run.
			expect(checked).toEqual({ breaches: [] });
			continue;
		}
		expect(checked).toEqual({ unreadable: expect.any(LimitReadError) });
		const { unreadable } = checked as { unreadable: LimitReadError };
		expect(unreadable.limit).toBe(name);
		expect(unreadable.message).toContain(`The account limit ${name} could not be read exactly (${why}`);
	}
	expect(limitEntry(limits as never, name)).toEqual({ unreadable: expect.objectContaining({ limit: name }) });
});

test('an unreadable limit fails the check even when another limit is breached', () => {
	const limits = { maxValuePerDayUsd: { remaining: 1 }, maxCountPerDay: { limit: 'many' } };
	expect(limitBreaches(limits as never, { order: usd('5') })).toEqual({ unreadable: expect.objectContaining({ limit: 'maxCountPerDay' }) });
});

test("a run's total is held against the value left, not against the per-order maximum", () => {
	const limits = { maxTxUsd: { remaining: 100 }, maxValuePerDayUsd: { remaining: 150 } };
	expect(breaches(limits, { run: usd('120'), orders: 2 })).toEqual([]);
	expect(breaches(limits, { run: usd('150.0001'), orders: 2 })).toEqual(['150.0001 USD exceeds the value left today (maxValuePerDayUsd remaining 150 USD)']);
	expect(breaches(limits, '120')).toEqual(['120 USD exceeds the per-transaction maximum (maxTxUsd remaining 100 USD)']);
});

test("a run's number of orders is held against the orders left; one order needs one left", () => {
	const limits = { maxCountPerEpoch: { limit: 10, used: 8 }, maxCountPerDay: { remaining: 5 } };
	expect(breaches(limits, { run: usd('3'), orders: 2 })).toEqual([]);
	expect(breaches(limits, { run: usd('3'), orders: 3 })).toEqual(['3 orders but only 2 left in this netting window (maxCountPerEpoch remaining 2)']);
	expect(breaches(limits, '3')).toEqual([]);
	expect(breaches({ maxCountPerDay: { remaining: 0 } }, '3')).toEqual(['no orders left today (maxCountPerDay remaining 0)']);
});

test('every account limit has its words, with its API name', () => {
	expect(ACCOUNT_LIMITS.map(({ name }) => limitWords(name))).toEqual([
		'largest order allowed in USD (maxTxUsd)',
		'orders per netting window (maxCountPerEpoch)',
		'USD per netting window (maxValuePerEpochUsd)',
		'orders per day (maxCountPerDay)',
		'USD per day (maxValuePerDayUsd)',
	]);
	expect(limitWords('maxSomethingNew')).toBeUndefined();
});
