/** Create's limits pre-flight: which limits of GET /account/limits an order would breach, read exactly. */
import { parseUsdAmount } from '../../nodes/shared/amounts';
import { limitBreaches } from '../../nodes/Clearinghouse/actions/paymentOrder/accountLimits';
import { limitEntry, LimitReadError } from '../../nodes/shared/limits';

const usd = (text: string) => parseUsdAmount(text);

test('an order that fits every limit breaches none', () => {
	const limits = {
		maxTxUsd: { limit: 1000, used: 0, remaining: 1000 },
		maxValuePerEpochUsd: { limit: 5000, used: 4000, remaining: 1000 },
		maxValuePerDayUsd: { limit: 10000, used: 0, remaining: 10000 },
		maxCountPerEpoch: { limit: 10, used: 9, remaining: 1 },
		maxCountPerDay: { limit: 100, used: 0, remaining: 100 },
	};
	expect(limitBreaches(limits, usd('1000'))).toEqual([]);
});

test('the amount is compared exactly, in pips: one pip over the maximum breaches it', () => {
	expect(limitBreaches({ maxTxUsd: { remaining: 0.3 } }, usd('0.3'))).toEqual([]);
	expect(limitBreaches({ maxTxUsd: { remaining: 0.3 } }, usd('0.3001'))).toEqual([
		'0.3001 USD exceeds the per-transaction maximum (maxTxUsd remaining 0.3 USD)',
	]);
});

test('every breached limit is named, value limits before count limits', () => {
	const limits = {
		maxCountPerDay: { remaining: 0 },
		maxValuePerDayUsd: { remaining: 10 },
		maxValuePerEpochUsd: { remaining: 20 },
		maxCountPerEpoch: { remaining: 0 },
	};
	expect(limitBreaches(limits, usd('25'))).toEqual([
		'25 USD exceeds the value left in this netting window (maxValuePerEpochUsd remaining 20 USD)',
		'25 USD exceeds the value left today (maxValuePerDayUsd remaining 10 USD)',
		'no orders left in this netting window (maxCountPerEpoch remaining 0)',
		'no orders left today (maxCountPerDay remaining 0)',
	]);
});

test('without `remaining` what is left is the limit less what is used (used missing: 0)', () => {
	expect(limitBreaches({ maxValuePerDayUsd: { limit: 100, used: 90 } }, usd('11'))).toEqual([
		'11 USD exceeds the value left today (maxValuePerDayUsd remaining 10 USD)',
	]);
	expect(limitBreaches({ maxValuePerDayUsd: { limit: 100 } }, usd('100'))).toEqual([]);
});

test('what is left is exact: limit 1000.3 less 0.1 used leaves 1000.2, not a pip less', () => {
	// In floats 1000.3 - 0.1 is 1000.1999999999999: truncated to pips, an order of 1000.2 was refused.
	expect(limitEntry({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, 'maxValuePerDayUsd')).toEqual({ ceiling: 1000.3, remaining: 1000.2 });
	expect(limitBreaches({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, usd('1000.2'))).toEqual([]);
	expect(limitBreaches({ maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } }, usd('1000.2001'))).toEqual([
		'1000.2001 USD exceeds the value left today (maxValuePerDayUsd remaining 1000.2 USD)',
	]);
	expect(limitEntry({ maxValuePerEpochUsd: { limit: 0.3, used: 0.2 } }, 'maxValuePerEpochUsd')).toEqual({ ceiling: 0.3, remaining: 0.1 });
});

test('absent limits are not checked', () => {
	expect(limitBreaches({}, usd('1000000'))).toEqual([]);
	expect(limitBreaches({ maxTxUsd: null, maxValuePerDayUsd: undefined } as never, usd('1000000'))).toEqual([]);
});

test.each([
	['a limit of more than 4 decimal places', { maxTxUsd: { limit: 1000.00001, used: 0, remaining: 1000 } }, 'maxTxUsd', 'its limit is 1000.00001'],
	['a remaining value that is not a number', { maxValuePerDayUsd: { limit: 100, remaining: 'lots' } }, 'maxValuePerDayUsd', 'its remaining is "lots"'],
	['a used value that is not a number', { maxCountPerDay: { limit: 100, used: true } }, 'maxCountPerDay', 'its used is true'],
	['an entry that is not an object', { maxValuePerDayUsd: 'none' }, 'maxValuePerDayUsd', 'got "none", not an object'],
	['an entry with neither limit nor remaining', { maxCountPerDay: { used: 5 } }, 'maxCountPerDay', 'it has neither a limit nor a remaining value'],
])('%s fails closed, naming the limit', (_case, limits, name, why) => {
	let thrown: unknown;
	try {
		limitBreaches(limits as never, usd('1'));
	} catch (error) {
		thrown = error;
	}
	expect(thrown).toBeInstanceOf(LimitReadError);
	expect((thrown as LimitReadError).limit).toBe(name);
	expect((thrown as Error).message).toContain(`The account limit ${name} could not be read exactly (${why}`);
});
