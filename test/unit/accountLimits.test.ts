/** Create's limits pre-flight: which limits of GET /account/limits an order would breach. */
import { parseUsdAmount } from '../../nodes/shared/amounts';
import { limitBreaches } from '../../nodes/Clearinghouse/actions/paymentOrder/accountLimits';

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

test('absent or malformed limits are not checked', () => {
	expect(limitBreaches({}, usd('1000000'))).toEqual([]);
	expect(limitBreaches({ maxTxUsd: null, maxValuePerDayUsd: 'none', maxCountPerDay: { used: 5 } } as never, usd('1000000'))).toEqual([]);
});
